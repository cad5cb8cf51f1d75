/**
 * On 2026.9.6 (current): issue 5 assertion 3 (the reset-loop workload stays in one
 * session, the engine is used every turn, the maintenance-debt line appears once the
 * raw history outgrows the budget), then issue 6 in the real host (a manual
 * `sessions.compact` mid-session, and `/reset`: nothing from before leaks), and
 * issue 7's host CLI registration (`openclaw context-ledger status --json`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatTurn, runChatTurns, startHostRig, type HostRig, type TurnRecord } from "./gateway-session.js";
import { CURRENT_HOST, NODE_BINARY } from "./host-install.js";
import { countHostLogSignals, grepLines, parseDebtLines, readHostLog, readPluginEvents, type PluginEvent } from "./logs.js";
import { execTurnScript } from "./mock-scripts.js";
import { runOpenclaw, extractJson } from "./openclaw-cli.js";
import { RESET_LOOP_WORKLOAD as W } from "./workloads.js";

const TURNS = 6;

describe("context-ledger on 2026.9.6 through the gateway", () => {
  let rig: HostRig | undefined;
  let records: TurnRecord[] = [];
  let events: PluginEvent[] = [];
  let log = "";
  const started = Date.now();

  beforeAll(async () => {
    rig = await startHostRig({
      version: CURRENT_HOST,
      engine: "context-ledger",
      contextWindow: W.contextWindow,
      script: execTurnScript({ outputChars: W.outputChars, answerChars: W.answerChars, nodePath: NODE_BINARY }),
    });
    records = await runChatTurns(rig, { turns: TURNS, onTurn: (r) => console.log(`[fix-96] ${formatTurn(r)}`) });
    events = await readPluginEvents(rig.env);
    log = await readHostLog(rig.env);
  });

  afterAll(async () => {
    await rig?.close();
    console.log(`[fix-96] file wall time ${((Date.now() - started) / 1000).toFixed(1)}s`);
  });

  it("3: one session, no compaction failure, the engine on every turn, debt logged once raw outgrows the budget", () => {
    const detail = grepLines(log, /context-overflow|overflow detected|Auto-compaction|Restarting session|degraded|quarantin/).join("\n");
    const last = records.at(-1);
    expect(records.every((r) => r.status === "ok"), detail).toBe(true);
    expect(last?.signals.sessionRestarted, detail).toBe(0);
    expect(last?.signals.resetReply, detail).toBe(0);
    expect(last?.signals.compactionFailed, detail).toBe(0);
    expect(last?.signals.degradedToLegacy, detail).toBe(0);
    expect(last?.signals.quarantined, detail).toBe(0);
    const commits = events.filter((e) => e.op === "commitTurn" && e.status === "committed");
    expect(commits).toHaveLength(TURNS);
    const debts = parseDebtLines(log);
    const assembles = events.filter((e) => e.op === "assemble") as (PluginEvent & { debt?: { rawHistoryTokens: number; promptBudget: number } })[];
    const firstOver = assembles.find((e) => (e.debt?.rawHistoryTokens ?? 0) > (e.debt?.promptBudget ?? Infinity));
    console.log(`[fix-96] assembles ${assembles.map((e) => `${String(e.sessionKey)}:${String(e.messagesIn)}/${String(e.tokenBudget)}/${String(e.estimatedTokens)}`).join(" ")}`);
    console.log(`[fix-96] debt lines ${debts.length}; raw per assemble ${assembles.map((e) => e.debt?.rawHistoryTokens).join(",")}`);
    expect(firstOver, "raw history never outgrew the budget").toBeDefined();
    expect(debts.length).toBeGreaterThanOrEqual(1);
    expect(debts.every((d) => d.debt === d.raw - d.budget && d.assembled <= d.budget)).toBe(true);
  });

  it("issue 6: a manual sessions.compact mid-session is truthful, and the next turn starts with the summary", async () => {
    if (!rig) throw new Error("Expected the host rig");
    const result = await rig.gateway.sessionsCompact("agent:main:main");
    expect((result as { compacted?: boolean }).compacted, JSON.stringify(result)).toBe(true);
    const after = await runChatTurns(rig, { turns: 1 });
    const compacts = (await readPluginEvents(rig.env)).filter((e) => e.op === "compact");
    console.log(`[fix-96] sessions.compact → ${JSON.stringify(result).slice(0, 300)}; engine compact events ${JSON.stringify(compacts)}`);
    expect(compacts.length).toBeGreaterThanOrEqual(1);
    expect(compacts.some((e) => e.compacted === true)).toBe(true);
    const prompt = JSON.stringify(after[0]?.requests[0]?.body ?? {});
    expect(prompt).toContain("[context-ledger summary]");
    expect(after[0]?.status).toBe("ok");
  });

  it("issue 6: after a reset nothing from the earlier conversation reaches the model", async () => {
    if (!rig) throw new Error("Expected the host rig");
    await rig.gateway.call("sessions.reset", { key: "agent:main:main" });
    const before = rig.mock.requests.length;
    await rig.gateway.chatSend("agent:main:main", "Fresh start: what is two plus two?");
    const requests = rig.mock.requests.slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(1);
    const prompt = JSON.stringify(requests.map((q) => q.body));
    expect(prompt).toContain("Fresh start");
    expect(prompt).not.toContain("run the nightly report");
    expect(prompt).not.toContain("[context-ledger summary]");
    expect(countHostLogSignals(await readHostLog(rig.env)).compactionFailed).toBe(0);
  });

  it("issue 7: the commands are registered in the host CLI (openclaw context-ledger status --json)", async () => {
    if (!rig) throw new Error("Expected the host rig");
    const res = await runOpenclaw(rig.env, ["context-ledger", "status", "--json"], { timeoutMs: 180_000 });
    const json = extractJson(res.stdout) as { schema?: string; sessions?: unknown[] } | undefined;
    expect(res.code, res.stderr.slice(-1000)).toBe(0);
    expect(json?.schema).toBe("context-ledger.status.v1");
  });
});
