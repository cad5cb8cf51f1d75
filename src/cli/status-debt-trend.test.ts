import { describe, expect, it } from "vitest";
import type { DebtReading } from "../state/session-state.js";
import { debtTrend } from "./status-debt-trend.js";

const readings = (debts: number[]): DebtReading[] =>
  debts.map((debtTokens, i) => ({
    at: `2026-04-25T10:0${i}:00.000Z`,
    rawHistoryTokens: 1000 + debtTokens,
    assembledTokens: 900,
    promptBudget: 1000,
    debtTokens,
    reducibleChars: 0,
  }));

describe("debtTrend", () => {
  it("is unknown with fewer than two readings", () => {
    expect(debtTrend([])).toEqual({ direction: "unknown", growingStreak: 0, recent: [], warn: false });
    expect(debtTrend(readings([5]))).toMatchObject({ direction: "unknown", growingStreak: 0, recent: [5] });
  });

  it("compares the newest reading with the first of the window and counts the trailing growth streak", () => {
    expect(debtTrend(readings([0, 0, 0]))).toMatchObject({ direction: "flat", growingStreak: 0, warn: false });
    expect(debtTrend(readings([10, 20, 30]))).toMatchObject({ direction: "growing", growingStreak: 2, warn: false });
    expect(debtTrend(readings([10, 20, 30, 40]))).toMatchObject({ direction: "growing", growingStreak: 3, warn: true });
    // A paydown in between resets the streak; the window (last 5) still says growing.
    expect(debtTrend(readings([50, 60, 0, 10, 20, 70]))).toMatchObject({
      direction: "growing",
      growingStreak: 3,
      recent: [60, 0, 10, 20, 70],
      warn: true,
    });
    expect(debtTrend(readings([90, 80, 100, 100]))).toMatchObject({
      direction: "growing",
      growingStreak: 0,
      warn: false,
    });
    expect(debtTrend(readings([900, 100, 200]))).toMatchObject({
      direction: "shrinking",
      growingStreak: 1,
      warn: false,
    });
  });
});
