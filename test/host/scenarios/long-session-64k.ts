/**
 * The long session of `long-session.ts` (same turns, tool output and answers) at a
 * 65,536-token window, context-ledger only. Here the engine's budget (about 41k tokens)
 * is never reached in 20 turns; what trims history is the host: 2026.9.6 loads only the
 * newest `contextTokenBudget × 8` bytes of the transcript, so from turn 15 it cuts the
 * oldest turn off the front of `messages` on every request. The engine then keeps the
 * newest `budget.lowWaterRatio` of what it was passed, so the next cuts fall before its
 * window (measured 2026-11-23: 17 of 19 main requests extend the previous one; 13 of 19
 * when it kept everything passed).
 */
import { expect } from "vitest";
import { expectEveryTurnAnsweredInFull, measureLongSession } from "./long-session.js";
import type { HostScenario, ScenarioModel } from "./scenario.js";

/** The model shape of the 64k long session. */
export const LONG_SESSION_64K_MODEL: ScenarioModel = { contextWindow: 65_536, maxTokens: 4_096 };

export const longSession64kScenario: HostScenario = {
  name: "long-session-64k",
  lines: ["2026.9.6"],
  engines: ["context-ledger"],
  model: LONG_SESSION_64K_MODEL,
  async run(session) {
    const figures = await measureLongSession(session, "long-session-64k");
    expectEveryTurnAnsweredInFull(figures);
    // The host's cut reached the conversation's start (else nothing here is about cuts).
    expect(figures.mainRequests.trimmedRequests).toBeGreaterThanOrEqual(2);
    // One miss per cut that reaches the window, not one per turn cut (that was 13/19).
    expect(figures.mainRequests.share).toBeGreaterThanOrEqual(0.84);
  },
};
