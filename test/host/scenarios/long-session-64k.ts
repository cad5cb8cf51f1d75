/**
 * The long session of `long-session.ts` (same turns, tool output and answers) at a
 * 65,536-token window, context-ledger only. Here the engine's room (below the host's
 * memory-flush threshold of 44,000 provider tokens) is never outgrown in 20 turns, so what
 * could move the prompt's front is the host: 2026.9.6 loads only the newest
 * `contextTokenBudget × 8` bytes of the transcript.
 *
 * - `long-session-64k` (defaults): maintain() pays tool results down in the host's SQLite
 *   transcript, so that cap is not reached in 20 turns and every main request extends the
 *   previous one (measured 2026-11-23: 19 of 19).
 * - `host-cut-64k` (maintenance off, the transcript keeps every result): from turn 15 the
 *   host cuts the oldest turn off the front of `messages` on every request. The engine then
 *   keeps the newest `budget.lowWaterRatio` of what it was passed, so the next cuts fall
 *   before its window (measured: 17 of 19 extend the previous one; 13 of 19 when it kept
 *   everything passed).
 */
import { expect } from "vitest";
import { ledgerLongSession } from "./long-session.js";
import type { ScenarioModel } from "./scenario.js";

/** The model shape of the 64k long session. */
export const LONG_SESSION_64K_MODEL: ScenarioModel = { contextWindow: 65_536, maxTokens: 4_096 };

export const longSession64kScenario = ledgerLongSession(
  { name: "long-session-64k", model: LONG_SESSION_64K_MODEL, figure: true },
  (figures) => {
    // Nothing cut the conversation's start: not the engine (its room is not outgrown), not the host's byte cap.
    expect(figures.mainRequests.trimmedRequests).toBe(0);
    expect(figures.mainRequests.share).toBeGreaterThanOrEqual(0.9);
  },
);

export const hostCut64kScenario = ledgerLongSession(
  {
    name: "host-cut-64k",
    model: LONG_SESSION_64K_MODEL,
    ledgerConfig: { maintenance: { enabled: false } },
    figure: true,
  },
  (figures) => {
    // The host's cut reached the conversation's start (else nothing here is about cuts).
    expect(figures.mainRequests.trimmedRequests).toBeGreaterThanOrEqual(2);
    // One miss per cut that reaches the window, not one per turn cut.
    expect(figures.mainRequests.share).toBeGreaterThanOrEqual(0.84);
  },
);
