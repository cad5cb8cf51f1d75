/**
 * The two window figures (fill, extension) together in the real host: the long session of `long-session.ts` at a
 * 49,152-token window, context-ledger only, defaults. Below the host's memory-flush
 * threshold (49,152 − 12,288 − 4,000 = 32,864 provider tokens) history first outgrows the
 * room at about turn 16, so the re-plans that follow must keep the newest 3 turns, and at least 90% of main
 * requests must extend the previous one (measured 2026-11-23, three runs: 18 of 19, worst fill 0.604-0.606; below
 * 100k budgets the fill gives way to the cost model of docs/design.md). On an agent of its own (2026-11-26; its
 * system prompt lacks the host's custodian skills, see `ScenarioAgent`): 18 of 19, worst fill 0.599.
 * At 32k the room holds only about 6 turns and the cache figure cannot hold
 * (docs/host-lines.md); at 64k history never outgrows it in 20 turns.
 */
import { expect } from "vitest";
import { ledgerLongSession } from "./long-session.js";
import type { ScenarioModel } from "./scenario.js";

/** The model shape of the 48k long session. */
export const LONG_SESSION_48K_MODEL: ScenarioModel = { contextWindow: 49_152, maxTokens: 4_096 };

export const longSession48kScenario = ledgerLongSession(
  { name: "long-session-48k", model: LONG_SESSION_48K_MODEL, figure: true },
  (figures) => {
    // History outgrew the room (else the fill figure says nothing).
    expect(figures.mainRequests.trimmedRequests).toBeGreaterThan(0);
    expect(figures.mainRequests.missingNewestTurns).toEqual([]);
    expect(figures.mainRequests.share).toBeGreaterThanOrEqual(0.9);
  },
);
