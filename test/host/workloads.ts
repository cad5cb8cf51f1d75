/** A gateway workload: window size, per-turn tool output and answer, number of turns. */
export interface Workload {
  /** Advertised model context window (tokens). */
  contextWindow: number;
  /** Characters the `exec` tool prints each turn. */
  outputChars: number;
  /** Characters of the model's final answer each turn. */
  answerChars: number;
  /** Turns to drive at most. */
  maxTurns: number;
}

/**
 * The reset-loop workload: a 32,000-token window, each turn an `exec`
 * printing 150,000 chars plus a 12,000-char answer. On 2026.4.24 with a naive
 * engine it reset the session at turn 3 (and again at turn 6) here.
 */
export const RESET_LOOP_WORKLOAD: Workload = {
  contextWindow: 32_000,
  outputChars: 150_000,
  answerChars: 12_000,
  maxTurns: 12,
};

/** The user message of turn `n` (unique per turn, so the mock can tell turns apart). */
export function turnMessage(n: number): string {
  return `Turn ${n}: run the nightly report command again and summarize what changed.`;
}
