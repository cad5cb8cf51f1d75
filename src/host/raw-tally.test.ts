import { describe, expect, it } from "vitest";
import { recordDebt, type DebtReading } from "./raw-tally.js";

const reading = (turn: number | undefined, promptBudget: number, raw: number, assembled: number): DebtReading => ({
  at: `2026-11-27T10:00:0${turn ?? 0}.000Z`,
  rawHistoryTokens: raw,
  assembledTokens: assembled,
  promptBudget,
  debtTokens: Math.max(0, raw - promptBudget),
  reducibleChars: raw,
  ...(turn !== undefined ? { turn } : {}),
});

describe("recordDebt", () => {
  it("keeps one reading per turn: the main prompt's budget and size, the fullest raw history", () => {
    const state = { lastDebt: null as DebtReading | null, debtHistory: [] as DebtReading[] };
    // 2026.9.6's tool turn: before the turn (the whole history), then the loop's calls on the handed-back view.
    recordDebt(state, reading(4, 17_979, 36_000, 15_100));
    recordDebt(state, reading(4, 31_964, 14_000, 15_300));
    const last = recordDebt(state, reading(4, 512, 14_000, 413));
    expect(state.debtHistory).toHaveLength(1);
    expect(state.lastDebt).toBe(last);
    expect(last).toMatchObject({
      turn: 4,
      promptBudget: 31_964,
      assembledTokens: 15_300,
      rawHistoryTokens: 36_000,
      debtTokens: 36_000 - 31_964,
      reducibleChars: 36_000,
      assembles: 3,
      minPromptBudget: 512,
    });
    recordDebt(state, reading(5, 18_000, 37_000, 15_200));
    expect(state.debtHistory.map((d) => [d.turn, d.promptBudget, d.assembles ?? 1])).toEqual([
      [4, 31_964, 3],
      [5, 18_000, 1],
    ]);
  });

  it("on equal budgets the later assembly is the turn's prompt", () => {
    const state = { lastDebt: null as DebtReading | null, debtHistory: [] as DebtReading[] };
    recordDebt(state, reading(2, 32_000, 5_000, 4_000));
    recordDebt(state, reading(2, 32_000, 9_000, 8_000));
    expect(state.lastDebt).toMatchObject({ assembledTokens: 8_000, rawHistoryTokens: 9_000, debtTokens: 0 });
  });

  it("an assembly of no history (a probe) is not the turn's prompt, whatever its budget", () => {
    const state = { lastDebt: null as DebtReading | null, debtHistory: [] as DebtReading[] };
    recordDebt(state, reading(3, 31_000, 9_000, 8_000));
    recordDebt(state, reading(3, 32_000, 0, 3));
    expect(state.lastDebt).toMatchObject({ promptBudget: 31_000, assembledTokens: 8_000, assembles: 2 });
  });

  it("readings without a turn (recorded before turns were kept) are never merged", () => {
    const state = { lastDebt: null as DebtReading | null, debtHistory: [] as DebtReading[] };
    recordDebt(state, reading(undefined, 1_000, 2_000, 900));
    recordDebt(state, reading(undefined, 1_000, 3_000, 900));
    expect(state.debtHistory.map((d) => d.debtTokens)).toEqual([1_000, 2_000]);
  });
});
