/**
 * The long session with 12,000-char answers (`long-session-answers.ts`) for 30 turns at a 128,000-token window on
 * 2026.9.6, context-ledger only. History outgrows the room under the host's memory-flush threshold after about 20
 * turns; the later turns re-plan (2 of 29 turn starts, measured 2026-11-27), each time sending the kept window
 * (about 43.6k tokens) uncached. The cache figure is held against the ceiling of the session's own requests
 * ({@link cacheCeiling}): the share any engine could read from the cache, every unit an earlier request sent read
 * back (measured 83.1% against 85.8%). The host's own memory-flush run is logged, not asserted: in one of two
 * clean-clone runs on 2026-11-27 the host started it once at turn 12 (2 requests), every turn still answered in full.
 */
import { expect } from "vitest";
import { ledgerLongSession, measureLongSession, type LongSessionWorkload } from "./long-session.js";
import type { ScenarioModel } from "./scenario.js";

/** The model shape of the 128k long session. */
export const LONG_SESSION_128K_MODEL: ScenarioModel = { contextWindow: 128_000, maxTokens: 4_096 };

/** The workload: 30 turns of 40,000-char outputs and 12,000-char answers. */
export const LONG_SESSION_128K = {
  turns: 30,
  outputChars: 40_000,
  answerChars: 12_000,
} as const satisfies LongSessionWorkload;

export const longSession128kScenario = ledgerLongSession(
  { name: "long-session-128k", model: LONG_SESSION_128K_MODEL, figure: true },
  (figures) => {
    expect(figures.mainRequests.trimmedRequests).toBeGreaterThan(0);
    expect(figures.mainRequests.missingNewestTurns).toEqual([]);
    expect(figures.provider.cachedShare).toBeGreaterThanOrEqual((figures.provider.ceiling ?? 1) - 0.05);
  },
  (session, name) => measureLongSession(session, name, LONG_SESSION_128K),
  "logged",
);
