/**
 * The long session of `long-session.ts` with 12,000-char answers (20 turns, an `exec` printing 40,000 chars each
 * turn, window 32,000, maxTokens 4,096) on 2026.9.6. The room under the host's memory-flush threshold, less the
 * system prompt, schemas, summary reserve and the host's in-turn copy of the output, is about 4.5k tokens: one
 * whole turn (about 3.7k) fills it, and 2026.9.6 passes the live question outside `messages`, so a re-plan keeps
 * no turn (the summary alone) and the next turn start extends that window with the turn just finished. The figures
 * are held against the cache ceiling of the session's own requests ({@link cacheCeiling}); legacy's bill on the same
 * gateway is logged beside them (docs/host-lines.md, prefix caching).
 */
import { expect } from "vitest";
import type { HostScenario } from "./scenario.js";
import {
  expectEveryTurnAnsweredInFull,
  expectNoHostRuns,
  measureLongSession,
  type LongSessionWorkload,
} from "./long-session.js";
import { readFigures } from "./turn-figures.js";
import { answerCountsInHistory } from "../turn-as-seen.js";

/** The workload: the long session's turns and outputs, answers of 12,000 chars. */
export const LONG_ANSWERS_SESSION = {
  turns: 20,
  outputChars: 40_000,
  answerChars: 12_000,
} as const satisfies LongSessionWorkload;

export const longAnswersSessionScenario: HostScenario = {
  name: "long-session-answers",
  lines: ["2026.9.6"],
  engines: ["context-ledger", "legacy"],
  async run(session) {
    const figures = await measureLongSession(session, "long-session-answers", LONG_ANSWERS_SESSION);
    if (session.engineId !== "context-ledger") return;
    expectEveryTurnAnsweredInFull(figures);
    expectNoHostRuns(figures);
    // What a user reopening the chat sees: each 12,000-char answer once, as the model wrote it.
    expect(await answerCountsInHistory(session, figures.answers), "each answer in chat.history").toEqual(
      figures.answers.map(() => 1),
    );
    expect(figures.mainRequests.trimmedRequests).toBeGreaterThan(0);
    // Re-plans every other turn at most: at least one turn start in two reads the previous window from the cache
    // (measured 10 of 19 with the strict mock).
    expect(figures.mainRequests.extending).toBeGreaterThanOrEqual(Math.floor(figures.mainRequests.compared / 2));
    // Two runs with the strict mock: 66.9-67.0% cached against a ceiling of 67.7-67.8% (docs/host-lines.md).
    expect(figures.provider.cachedShare).toBeGreaterThanOrEqual((figures.provider.ceiling ?? 1) - 0.05);
    // Legacy's bill on this workload follows how many of its turns start right after one of the host's compactions
    // ($0.31-0.51 over eight runs, every one answering 20 of 20; see docs/host-lines.md), so it is logged beside
    // context-ledger's, not asserted against.
    const legacy = await readFigures("long-session-answers", session.version, "legacy");
    const legacyCost = (legacy?.provider as { inputCostUsd?: number } | undefined)?.inputCostUsd;
    console.log(
      `[long-session-answers] input cost context-ledger $${figures.provider.inputCostUsd.toFixed(4)}, legacy $${legacyCost?.toFixed(4) ?? "?"}`,
    );
  },
};
