/**
 * On 2026.9.6 (current): the reset-loop workload stays in one session, the engine is
 * used every turn, and the maintenance-debt line appears once the raw history outgrows
 * the budget; then continuity in the real host (a manual `sessions.compact` mid-session,
 * and a reset: nothing from before leaks), and the host CLI registration
 * (`openclaw context-ledger status --json`).
 */
import { expect } from "vitest";
import { formatTurn } from "../gateway-session.js";
import { CURRENT_HOST, NODE_BINARY } from "../host-install.js";
import { assertWorded } from "../log-wording.js";
import { countHostLogSignals, grepLines, parseDebtLines, type PluginEvent } from "../logs.js";
import { execTurnScript } from "../mock-scripts.js";
import { extractJson, runOpenclaw } from "../openclaw-cli.js";
import { RESET_LOOP_WORKLOAD as W, turnMessage } from "../workloads.js";
import type { HostScenario } from "./scenario.js";
import { runScenarioTurns } from "./turns.js";

// Seven: maintain() pays each turn's 150,000-char output down in the host's transcript, so the raw history
// (the answers stay) outgrows the 17,210-token budget only at turn 7.
const TURNS = 7;

export const fixHolds96: HostScenario = {
  name: "fix-holds-96",
  lines: [CURRENT_HOST],
  engines: ["context-ledger"],
  async run(session) {
    const resetLoopScript = execTurnScript({
      outputChars: W.outputChars,
      answerChars: W.answerChars,
      nodePath: NODE_BINARY,
    });
    session.setScript(resetLoopScript);
    const records = await runScenarioTurns(session, {
      turns: TURNS,
      onTurn: (r) => console.log(`[fix-96] ${formatTurn(r)}`),
    });
    const events = await session.pluginEvents();
    const log = await session.hostLog();

    // 3: one session, no compaction failure, the engine on every turn, debt logged once raw outgrows the budget.
    const detail = grepLines(
      log,
      /context-overflow|overflow detected|Auto-compaction|Restarting session|degraded|quarantin/,
    ).join("\n");
    const last = records.at(-1);
    expect(
      records.every((r) => r.status === "ok"),
      detail,
    ).toBe(true);
    for (const signal of [
      "sessionRestarted",
      "resetReply",
      "compactionFailed",
      "degradedToLegacy",
      "quarantined",
    ] as const) {
      assertWorded(signal, session.version);
      expect(last?.signals[signal], `${signal}\n${detail}`).toBe(0);
    }
    // Scenarios share a gateway: another session's post-turn work can land in this window of the events file.
    const commits = events.filter(
      (e) => e.op === "commitTurn" && e.status === "committed" && e.sessionKey === session.sessionKey,
    );
    expect(commits).toHaveLength(TURNS);
    const debts = parseDebtLines(log);
    const assembles = events.filter((e) => e.op === "assemble") as (PluginEvent & {
      debt?: { rawHistoryTokens: number; promptBudget: number };
    })[];
    const firstOver = assembles.find((e) => (e.debt?.rawHistoryTokens ?? 0) > (e.debt?.promptBudget ?? Infinity));
    console.log(
      `[fix-96] assembles ${assembles.map((e) => `${String(e.sessionKey)}:${String(e.messagesIn)}/${String(e.tokenBudget)}/${String(e.estimatedTokens)}`).join(" ")}`,
    );
    console.log(
      `[fix-96] debt lines ${debts.length}; raw per assemble ${assembles.map((e) => e.debt?.rawHistoryTokens).join(",")}`,
    );
    expect(firstOver, "raw history never outgrew the budget").toBeDefined();
    expect(debts.length).toBeGreaterThanOrEqual(1);
    expect(debts.every((d) => d.debt === d.raw - d.budget && d.assembled <= d.budget)).toBe(true);

    // A manual sessions.compact mid-session compacts, and the next turn starts with the summary.
    // Below the host's memory-flush threshold (20,000 at 32k) the window holds one reset-loop turn (a
    // 12,000-char answer each). Two short exchanges after it: the second one's view (history up to the
    // first) holds that turn and a newer one, so there is an older turn to fold.
    session.setScript(() => ({ text: "Noted." }));
    await runScenarioTurns(session, {
      turns: 2,
      message: (n) => `Short one ${n}: note that the report ran. [fix-holds-96]`,
    });
    session.setScript(resetLoopScript);
    const ours = (e: PluginEvent) => e.sessionKey === session.sessionKey;
    const compactsBefore = (await session.pluginEvents()).filter((e) => e.op === "compact" && ours(e)).length;
    const result = await session.call("sessions.compact", { key: session.sessionKey }, 300_000);
    expect((result as { compacted?: boolean }).compacted, JSON.stringify(result)).toBe(true);
    const after = await runScenarioTurns(session, { turns: 1, message: () => turnMessage(TURNS + 1) });
    const compacts = (await session.pluginEvents()).filter((e) => e.op === "compact" && ours(e)).slice(compactsBefore);
    expect(compacts.some((e) => e.compacted === true)).toBe(true);
    expect(JSON.stringify(after[0]?.requests[0]?.body ?? {})).toContain("[context-ledger summary]");
    expect(after[0]?.status).toBe("ok");

    // After a reset nothing from the earlier conversation reaches the model.
    await session.call("sessions.reset", { key: session.sessionKey });
    const before = session.requests().length;
    await session.chatSend("Fresh start: what is two plus two?");
    const requests = session.requests().slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(1);
    const prompt = JSON.stringify(requests.map((q) => q.body));
    expect(prompt).toContain("Fresh start");
    expect(prompt).not.toContain("run the nightly report");
    expect(prompt).not.toContain("[context-ledger summary]");
    expect(countHostLogSignals(await session.hostLog()).compactionFailed).toBe(0);

    // The commands are registered in the host CLI.
    const res = await runOpenclaw(session.env, ["context-ledger", "status", "--json"], { timeoutMs: 180_000 });
    const json = extractJson(res.stdout) as { schema?: string } | undefined;
    expect(res.code, res.stderr.slice(-1000)).toBe(0);
    expect(json?.schema).toBe("context-ledger.status.v1");
  },
};
