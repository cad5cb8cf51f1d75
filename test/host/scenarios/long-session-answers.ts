/**
 * The long session of `long-session.ts` with 12,000-char answers (20 turns, an `exec` printing 40,000 chars each
 * turn, window 32,000, maxTokens 4,096), on 2026.9.6 and on 2026.7.35 (of 2026.5.28-2026.8.x, a line whose system
 * prompt and tool schemas leave an empty conversation its maxTokens at 32,000; 2026.8.2 leaves about 50 tokens with
 * the rig's tool set, docs/host-lines.md). On both: every turn answered, no request below maxTokens, no reset, and
 * the history a user reopens shows the conversation as written after the post-turn work and again after a gateway
 * restart.
 *
 * On 2026.9.6 the room under the host's memory-flush threshold, less the system prompt, schemas, summary reserve and
 * the host's in-turn copy of the output, is about 4.5k tokens: one whole turn (about 3.7k) fills it, and 2026.9.6
 * passes the live question outside `messages`, so a re-plan keeps no turn (the summary alone) and the next turn start
 * extends that window with the turn just finished. The figures are held against the cache ceiling of the session's
 * own requests ({@link cacheCeiling}). Legacy's bill on this workload moves with the host's own compactions
 * ($0.31-0.51, docs/host-lines.md, prefix caching), so no test can hold context-ledger's against it: its run, which
 * checks nothing, is left out of `npm test` and added by `npm run test:figures`, which logs both bills.
 */
import { expect } from "vitest";
import { countHostLogSignals, markLogs, readHostLog } from "../logs.js";
import { conversationAsWritten, conversationShown } from "../turn-as-seen.js";
import { figuresRun, type HostScenario, type ScenarioSession } from "./scenario.js";
import {
  expectEveryTurnAnsweredInFull,
  expectNoHostRuns,
  measureLongSession,
  type LongSessionFigures,
  type LongSessionWorkload,
} from "./long-session.js";
import { readFigures } from "./turn-figures.js";

/** The workload: the long session's turns and outputs, answers of 12,000 chars. */
export const LONG_ANSWERS_SESSION = {
  turns: 20,
  outputChars: 40_000,
  answerChars: 12_000,
} as const satisfies LongSessionWorkload;

/**
 * Runs the session as `name` and checks what every line must give the user; returns the figures for a line's own
 * checks, or undefined for a control engine's run.
 */
async function runLongAnswers(session: ScenarioSession, name: string): Promise<LongSessionFigures | undefined> {
  const mark = await markLogs(session.env);
  const figures = await measureLongSession(session, name, LONG_ANSWERS_SESSION);
  if (session.engineId !== "context-ledger") return undefined;
  expectEveryTurnAnsweredInFull(figures);
  const signals = countHostLogSignals(await readHostLog(session.env, [], mark));
  expect({ restarted: signals.sessionRestarted, resetReply: signals.resetReply }, "resets").toEqual({
    restarted: 0,
    resetReply: 0,
  });
  expect(figures.mainRequests.trimmedRequests).toBeGreaterThan(0);
  // What a user reopening the chat sees: each message and each 12,000-char answer once, as written, also from a
  // gateway that loads the session afresh.
  expect(figures.answers.every((a) => a.length >= LONG_ANSWERS_SESSION.answerChars)).toBe(true);
  const asWritten = conversationAsWritten(figures.answers);
  expect(await conversationShown(session, figures.answers), "chat.history after the post-turn work").toEqual(asWritten);
  await session.restartGateway();
  expect(await conversationShown(session, figures.answers), "chat.history after a gateway restart").toEqual(asWritten);
  return figures;
}

export const longAnswersSessionScenario: HostScenario = {
  name: "long-session-answers",
  lines: ["2026.9.6"],
  engines: figuresRun() ? ["context-ledger", "legacy"] : ["context-ledger"],
  async run(session) {
    const figures = await runLongAnswers(session, "long-session-answers");
    if (!figures) return;
    expectNoHostRuns(figures);
    // Re-plans every other turn at most: at least one turn start in two reads the previous window from the cache
    // (measured 10 of 19 with the strict mock).
    expect(figures.mainRequests.extending).toBeGreaterThanOrEqual(Math.floor(figures.mainRequests.compared / 2));
    // Two runs with the strict mock: 66.9-67.0% cached against a ceiling of 67.7-67.8% (docs/host-lines.md).
    expect(figures.provider.cachedShare).toBeGreaterThanOrEqual((figures.provider.ceiling ?? 1) - 0.05);
    // Legacy's bill follows how many of its turns start right after one of the host's compactions ($0.31-0.51 over
    // eight runs, every one answering 20 of 20; docs/host-lines.md): logged beside context-ledger's when it ran.
    const legacy = await readFigures("long-session-answers", session.version, "legacy");
    const legacyCost = (legacy?.provider as { inputCostUsd?: number } | undefined)?.inputCostUsd;
    console.log(
      `[long-session-answers] input cost context-ledger $${figures.provider.inputCostUsd.toFixed(4)}${legacyCost === undefined ? " (legacy's run: npm run test:figures)" : `, legacy $${legacyCost.toFixed(4)}`}`,
    );
  },
};

/**
 * The same session on 2026.7.35, context-ledger only (legacy answers 1 of 6 reset-loop turns there). The host starts
 * its memory flush here whatever the engine does: memory-core's plan (`buildMemoryFlushPlan`) puts it at window −
 * 20,000 − 4,000 = 8,000 tokens at 32,000, under the system prompt and tool schemas alone. It ran once in the session
 * (once per compaction cycle, `runMemoryFlushIfNeeded`), and the model answers it `NO_REPLY`.
 */
export const longAnswersSession735Scenario: HostScenario = {
  name: "long-session-answers-735",
  lines: ["2026.7.35"],
  engines: ["context-ledger"],
  async run(session) {
    await runLongAnswers(session, "long-session-answers-735");
  },
};
