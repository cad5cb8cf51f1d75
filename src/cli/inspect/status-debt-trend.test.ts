import { describe, expect, it } from "vitest";
import type { DebtReading } from "../../state/session-state.js";
import { debtTrend, NOTHING_TO_RECLAIM, trendLabel } from "./status-debt-trend.js";

const readings = (debts: number[], reducibleChars = 1_000_000): DebtReading[] =>
  debts.map((debtTokens, i) => ({
    at: `2026-04-25T10:0${i}:00.000Z`,
    rawHistoryTokens: 1000 + debtTokens,
    assembledTokens: 900,
    promptBudget: 1000,
    debtTokens,
    reducibleChars,
  }));

describe("debtTrend", () => {
  it("is unknown with fewer than two readings", () => {
    expect(debtTrend([])).toEqual({
      direction: "unknown",
      growingStreak: 0,
      recent: [],
      reclaimableTokens: 0,
      verdict: "unknown",
      warn: false,
    });
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

  it("says growing, and warns, only while some of the debt is tool output a paydown or clean could remove", () => {
    const reclaimable = debtTrend(readings([10, 20, 30, 40], 100));
    expect(reclaimable).toMatchObject({ verdict: "growing", reclaimableTokens: 25, warn: true });
    expect(trendLabel(reclaimable)).toBe("growing x3");
    // The 2026.4.24 case: answers and stubs only, nothing a clean would free.
    const conversation = debtTrend(readings([10_000, 20_000, 30_000, 32_532], 0));
    expect(conversation).toMatchObject({
      direction: "growing",
      growingStreak: 3,
      reclaimableTokens: 0,
      verdict: NOTHING_TO_RECLAIM,
      warn: false,
    });
    expect(trendLabel(conversation)).toBe("nothing to reclaim");
    // No debt: nothing to say about reclaiming; the direction stands.
    expect(debtTrend(readings([30, 0], 0))).toMatchObject({ verdict: "shrinking", warn: false });
    // More reducible output than debt: only the debt is reclaimable debt.
    expect(debtTrend(readings([5, 8], 400)).reclaimableTokens).toBe(8);
  });
});
