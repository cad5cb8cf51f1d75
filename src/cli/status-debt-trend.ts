import type { DebtReading } from "../state/session-state.js";

/** How many recent readings the trend looks at. */
export const TREND_WINDOW = 5;
/** Consecutive growing readings that raise a warning. */
export const GROWING_WARN_STREAK = 3;

/** Direction and streak of a session's maintenance debt. */
export interface DebtTrend {
  /** Last debt vs the first of the last {@link TREND_WINDOW} readings. */
  direction: "growing" | "shrinking" | "flat" | "unknown";
  /** Trailing readings each larger than the one before. */
  growingStreak: number;
  /** Debt tokens of the readings looked at, oldest first. */
  recent: number[];
  /** True when the debt grew for at least {@link GROWING_WARN_STREAK} readings in a row. */
  warn: boolean;
}

/** The trend of a debt history (oldest first). */
export function debtTrend(history: readonly DebtReading[], window = TREND_WINDOW): DebtTrend {
  const recent = history.slice(-Math.max(2, window)).map((r) => r.debtTokens);
  let growingStreak = 0;
  for (let i = history.length - 1; i > 0; i--) {
    if ((history[i]?.debtTokens ?? 0) > (history[i - 1]?.debtTokens ?? 0)) growingStreak++;
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
  return { direction, growingStreak, recent, warn: growingStreak >= GROWING_WARN_STREAK };
}
