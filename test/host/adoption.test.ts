/**
 * Adoption: context-ledger takes over a session that another engine built, as an operator
 * does by switching the context-engine slot back to it (on 2026.9.6). A session of 20 tool turns runs
 * under `legacy` (raw `exec` outputs in the host's transcript), the gateway restarts with
 * context-ledger in the slot, and the next turns must be answered by the model: on
 * 2026.9.6 a transcript rewrite before the turn races the host's admission of the user's
 * message, which is then dropped ("Persisted user turn changed before replay admission"),
 * so the engine pays the adopted history down after the turn, where the host allows it. When
 * legacy's last prompt neared the window, 2026.9.6 also runs a preflight compaction before the
 * first assemble after the restart: the engine, with no view yet, must answer it as a skip (a
 * refusal, "no_assembled_view", fails the turns).
 */
import { afterAll, describe, expect, it } from "vitest";
import { startGateway, type Gateway } from "./gateway.js";
import { createHostEnv, LEDGER_ID, type HostEnv } from "./host-env.js";
import type { HostVersion } from "./host-install.js";
import { grepLines, markLogs, readHostLog, readPluginEvents } from "./logs.js";
import { execTurnScript } from "./mock-scripts.js";
import { startMockModel, type MockModel, type MockRequest } from "./mock-model.js";
import { stopAllGroups } from "./processes.js";
import { answerCountsInHistory, describeSeenTurn, modelAnswerOf, sendTurnAsSeen } from "./turn-as-seen.js";
import { turnMessage } from "./workloads.js";

/**
 * Legacy turns before the adoption per line: 20 where the loss was seen (2026.9.6). `npm test` runs 2026.9.6;
 * `CONTEXT_LEDGER_ADOPTION_LINES=all` adds 2026.8.2 (no transcript rewrite for the race to hit) and 2026.4.24,
 * 65-235 s each. 2026.4.24 answered 3/3 alone and 2 of 2 runs on a loaded machine (2026-11-26), but lost the third
 * turn after adoption once in a loaded clean-clone run (run ok, no model request, the message not in chat.history):
 * not reproduced since, not understood.
 */
const LINES: readonly { version: HostVersion; before: number }[] = [
  { version: "2026.9.6", before: 20 },
  ...(process.env.CONTEXT_LEDGER_ADOPTION_LINES === "all"
    ? [
        { version: "2026.8.2" as const, before: 10 },
        { version: "2026.4.24" as const, before: 10 },
      ]
    : []),
];
/** Turns after the adoption. */
const AFTER = 3;
const SESSION_KEY = "agent:main:adoption";

/** The final answer of each of the first `turns` turns (`turnMessage(n)`) as the model wrote it ("" when none). */
function modelAnswersByTurn(requests: readonly MockRequest[], turns: number): string[] {
  return Array.from(
    { length: turns },
    (_, i) => modelAnswerOf(requests.filter((r) => r.userText.includes(turnMessage(i + 1)))) ?? "",
  );
}
describe.each(LINES.map((l) => [l.version, l.before] as const))("adoption on %s", (version, BEFORE) => {
  let mock: MockModel | undefined;
  let env: HostEnv | undefined;
  let gateway: Gateway | undefined;
  afterAll(async () => {
    await gateway?.stop();
    await stopAllGroups();
    await mock?.close();
    await env?.cleanup();
  });

  it(`a ${BEFORE}-turn legacy session switched to context-ledger answers its next turns`, async () => {
    // 12,000-char outputs: over every line's offload and paydown thresholds, and 20 turns stay in a 64k window.
    mock = await startMockModel({ script: execTurnScript({ outputChars: 12_000, answerChars: 400 }) });
    env = await createHostEnv({
      version,
      baseUrl: mock.baseUrl,
      modelId: mock.modelId,
      engine: "context-ledger",
      contextWindow: 64_000,
    });
    await env.updateConfig({ plugins: { slots: { contextEngine: "legacy" } } });
    gateway = await startGateway(env);
    for (let n = 1; n <= BEFORE; n++) {
      const turn = await gateway.chatSend(SESSION_KEY, turnMessage(n));
      expect(turn.wait.status, `legacy turn ${n}: ${JSON.stringify(turn.wait)}`).toBe("ok");
    }
    // The legacy turns' answers as the model wrote them: the adopted session must keep showing them as written.
    const legacyAnswers = modelAnswersByTurn(mock.requests, BEFORE);
    await gateway.stop();
    // The plugin is loaded (its tool and capture hook register) but the slot's engine was legacy's.
    const before = await readPluginEvents(env);
    expect(before.filter((e) => e.op === "assemble" || e.op === "maintain").map((e) => e.op)).toEqual([]);

    await env.updateConfig({ plugins: { slots: { contextEngine: LEDGER_ID } } });
    gateway = await startGateway(env);
    const live = gateway;
    const hostEnv = env;
    const model = mock;
    const session = {
      engineId: LEDGER_ID,
      sessionKey: SESSION_KEY,
      requests: () => model.requests,
      chatSend: (message: string) => live.chatSend(SESSION_KEY, message),
      call: (method: string, params?: Record<string, unknown>, timeoutMs?: number) =>
        live.call(method, params, timeoutMs),
      pluginEvents: () => readPluginEvents(hostEnv),
    };
    const mark = await markLogs(env);
    const seen = [];
    for (let n = BEFORE + 1; n <= BEFORE + AFTER; n++) seen.push(await sendTurnAsSeen(session, turnMessage(n)));
    // A turn lost under load in CI once (run error, no log kept): the host's own error lines go with the failure.
    const hostErrors = seen.every((s) => s.answered)
      ? []
      : grepLines(await readHostLog(env, [], mark), /error|fail|quarantin|admission|degraded/i, 30);
    expect(
      seen.map((s) => (s.answered ? "model" : `"${s.shown.slice(0, 80)}" (${describeSeenTurn(s)})`)),
      hostErrors.join("\n"),
    ).toEqual(seen.map(() => "model"));
    // Every answer, the legacy turns' included, once and as written in the history a user reopens.
    const answers = [...legacyAnswers, ...seen.map((s) => s.modelAnswer ?? "")];
    expect(answers).toHaveLength(BEFORE + AFTER);
    expect(await answerCountsInHistory(session, answers), "each answer in chat.history").toEqual(answers.map(() => 1));
    // The engine served the adopted session, and the adoption answered turns whose prompts it assembled.
    const events = await readPluginEvents(env);
    const assembled = events.filter((e) => e.op === "assemble" && e.sessionKey === SESSION_KEY);
    expect(assembled.length).toBeGreaterThanOrEqual(AFTER);
    const paydowns = events.filter((e) => e.op === "paydown" && e.sessionKey === SESSION_KEY);
    console.log(
      `[adoption ${version}] ${BEFORE} legacy turns, then ${AFTER} with context-ledger: ${seen.filter((s) => s.answered).length}/${AFTER} answered; paydowns ${paydowns.map((p) => `${String(p.rewrittenEntries ?? 0)} entries${p.reason ? ` (${String(p.reason)})` : ""}`).join(", ") || "none"}`,
    );
  }, 900_000);
});
