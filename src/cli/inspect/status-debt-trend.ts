import type { DebtReading } from "../../state/session-state.js";
import { debtAfter } from "./session-figures.js";

/** How many recent readings the trend looks at. */
export const TREND_WINDOW = 5;
/** Consecutive growing readings that raise a warning. */
export const GROWING_WARN_STREAK = 3;
/** What status says of debt none of which a paydown or `session clean` could remove. */
export const NOTHING_TO_RECLAIM = "nothing to reclaim";

/** Direction and streak of a session's maintenance debt. */
export interface DebtTrend {
  /** Last debt vs the first of the last {@link TREND_WINDOW} readings. */
  direction: "growing" | "shrinking" | "flat" | "unknown";
  /** Trailing readings each larger than the one before. */
  growingStreak: number;
  /** Debt tokens of the readings looked at, oldest first. */
  recent: number[];
  /**
   * Tokens of the newest debt a paydown or `session clean` could remove: tool output above the offload threshold
   * (its chars / 4, the debt's own unit), at most the debt.
   */
  reclaimableTokens: number;
  /**
   * What to say of it: the direction while some of the debt is reclaimable; {@link NOTHING_TO_RECLAIM} when there
   * is debt and none of it is (what remains is the conversation itself: only the host's compaction or a new
   * session shortens it).
   */
  verdict: DebtTrend["direction"] | typeof NOTHING_TO_RECLAIM;
  /** True when the debt grew {@link GROWING_WARN_STREAK} readings in a row or more and some of it is reclaimable. */
  warn: boolean;
}

/** The trend of a debt history (oldest first), on each reading's debt after its turn's paydown. */
export function debtTrend(history: readonly DebtReading[], window = TREND_WINDOW): DebtTrend {
  const recent = history.slice(-Math.max(2, window)).map(debtAfter);
  let growingStreak = 0;
  for (let i = history.length - 1; i > 0; i--) {
    const now = history[i];
    const before = history[i - 1];
    if (now && before && debtAfter(now) > debtAfter(before)) growingStreak++;
    else break;
  }
  const first = recent[0];
  const last = recent.at(-1);
  const direction =
    first === undefined || last === undefined || recent.length < 2
      ? "unknown"
      : last > first
        ? "growing"
        : last < first
          ? "shrinking"
          : "flat";
  const newest = history.at(-1);
  // After a paydown the reducible output is gone from the transcript; what the paydown left is what counts.
  const reclaimableTokens = newest ? Math.min(debtAfter(newest), Math.ceil(newest.reducibleChars / 4)) : 0;
  const verdict = newest && debtAfter(newest) > 0 && reclaimableTokens === 0 ? NOTHING_TO_RECLAIM : direction;
  return {
    direction,
    growingStreak,
    recent,
    reclaimableTokens,
    verdict,
    warn: growingStreak >= GROWING_WARN_STREAK && reclaimableTokens > 0,
  };
}

/** The trend as one short phrase: `growing x4`, `flat`, `nothing to reclaim`. */
export function trendLabel(trend: DebtTrend): string {
  return trend.verdict === "growing" && trend.growingStreak > 0 ? `growing x${trend.growingStreak}` : trend.verdict;
}

/** The host's assemblies of a turn other than its main prompt, from the turn's debt reading. */
export function inTurnAssembles(
  reading: Pick<DebtReading, "assembles" | "minPromptBudget" | "promptBudget"> | null | undefined,
): { count: number; smallestBudget: number } | null {
  const count = (reading?.assembles ?? 1) - 1;
  return reading && count > 0 ? { count, smallestBudget: reading.minPromptBudget ?? reading.promptBudget } : null;
}
