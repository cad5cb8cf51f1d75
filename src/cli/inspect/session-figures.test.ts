import { describe, expect, it } from "vitest";
import type { DebtReading } from "../../host/raw-tally.js";
import { createSessionState } from "../../state/session-state.js";
import { describeTally, emptyTally, sessionFigures, tallyMeta, userTurnReadings } from "./session-figures.js";

const BUDGET = 10_000;

function reading(turn: number, userTurn: number, raw: number, after?: number): DebtReading {
  return {
    at: new Date(Date.UTC(2026, 10, 28, 10, turn)).toISOString(),
    rawHistoryTokens: raw,
    assembledTokens: 3_000 + turn,
    promptBudget: BUDGET,
    debtTokens: Math.max(0, raw - BUDGET),
    reducibleChars: 0,
    turn,
    userTurn,
    ...(after === undefined
      ? {}
      : { afterPaydown: { at: "x", rawHistoryTokens: after, debtTokens: Math.max(0, after - BUDGET) } }),
  };
}

describe("session figures", () => {
  it("counts tool outputs apart from checkpoints, transcript parts and other parts", () => {
    const tally = emptyTally();
    for (const kind of [
      "tool-output",
      "checkpoint",
      "checkpoint",
      "transcript-part",
      "transcript-branches",
      "transcript-branches-packed",
      "schema",
    ])
      tallyMeta(tally, { kind });
    expect(tally).toEqual({ toolOutputs: 1, checkpoints: 2, transcriptParts: 3, other: 1 });
    expect(describeTally(tally)).toBe(
      "1 tool output offloaded (stored apart: 2 checkpoints, 3 transcript parts, 1 other part)",
    );
  });

  it("groups a line's per-step readings into one reading per user turn, debt before and after its paydown", () => {
    // 2026.4.24 commits each tool-loop step: three readings per user turn, the last one sees the raw tool output.
    const history = [
      reading(1, 1, 0, 3_456),
      reading(2, 1, 56, 3_512),
      reading(3, 1, 37_639, 6_912),
      reading(4, 2, 6_912, 6_912),
      reading(5, 2, 6_968, 6_968),
      reading(6, 2, 44_551, 7_000),
    ];
    const turns = userTurnReadings(history);
    expect(turns.map((t) => [t.userTurn, t.debtBefore, t.debtAfter])).toEqual([
      [1, 27_639, 0],
      [2, 34_551, 0],
    ]);
    const state = createSessionState("main", "agent:main:s");
    state.turns = 6;
    state.userTurns = 2;
    state.compactions = 2;
    state.hostCompactions = 1;
    state.debtHistory = history;
    state.lastDebt = history.at(-1) ?? null;
    expect(sessionFigures(state)).toEqual({
      userTurns: 2,
      compactions: 1,
      checkpoints: 2,
      debtBeforePaydown: 34_551,
      debtAfterPaydown: 0,
    });
  });

  it("reads a state written before the figures were kept by its commits and checkpoints", () => {
    const state = createSessionState("main", "agent:main:old");
    delete state.userTurns;
    delete state.hostCompactions;
    state.turns = 4;
    state.compactions = 3;
    expect(sessionFigures(state)).toMatchObject({ userTurns: 4, compactions: 3, debtAfterPaydown: null });
  });
});
