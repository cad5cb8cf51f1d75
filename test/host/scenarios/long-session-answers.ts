/**
 * The long session of `long-session.ts` with 12,000-char answers (20 turns, an `exec` printing 40,000 chars each
 * turn, window 32,000, maxTokens 4,096) on 2026.9.6. Here three whole turns (about 10k tokens with their answers)
 * nearly fill the room under the host's memory-flush threshold, so a re-plan that kept them would leave no room
 * for the next turn and every turn start would re-plan. The cost model then keeps fewer turns (never fewer than the
 * newest whole turn before the question) so that the next turns extend the prompt (docs/design.md, Assembly).
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
    expect(figures.mainRequests.trimmedRequests).toBeGreaterThan(0);
    // At least one turn start in two extends the previous turn's start: its window is read from the cache.
    expect(figures.mainRequests.share).toBeGreaterThanOrEqual(0.5);
    const legacy = await readFigures("long-session-answers", session.version, "legacy");
    expect(
      legacy,
      `legacy's run on ${session.version} recorded no figures (it runs first in the line file)`,
    ).toBeDefined();
    const legacyCost = (legacy?.provider as { inputCostUsd: number }).inputCostUsd;
    expect(figures.provider.inputCostUsd).toBeLessThanOrEqual(0.5 * legacyCost);
  },
};
