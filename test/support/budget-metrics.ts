/**
 * The two window figures (fill and cache stability), computed the same way from an engine replay
 * (bench/budget-replay.mjs) and from a host mock's recorded request bodies:
 * how much of its budget a prompt fills, and whether a prompt is a pure
 * extension of the previous main prompt (a provider prompt-cache hit).
 * Plain TypeScript without imports, so `node` (type stripping) and vitest load it alike.
 */

/** One assembled (or sent) prompt. */
export interface BudgetCall {
  /** Tokens of the prompt as sent (messages plus any system addition). */
  tokens: number;
  /** The budget it was planned for (the prompt budget the host admits). */
  budget: number;
  /** Tokens of the whole history the engine could have sent (shaped); the call counts only when it exceeds `budget`. */
  historyTokens: number;
}

/** Budget use over the calls whose history exceeds their budget. */
export interface FillStats {
  /** Calls whose history exceeds the budget. */
  calls: number;
  /** Smallest share of the budget filled (1 when no call counts). */
  worst: number;
  /** 10th percentile (nearest rank) of the share filled. */
  p10: number;
  /** Median share filled. */
  p50: number;
}

/** Nearest-rank percentile of `values` (p in 0..100); NaN for none. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Share of the budget each call fills, over the calls whose history exceeds the budget. */
export function fillStats(calls: readonly BudgetCall[]): FillStats {
  const shares = calls.filter((c) => c.historyTokens > c.budget && c.budget > 0).map((c) => c.tokens / c.budget);
  if (shares.length === 0) return { calls: 0, worst: 1, p10: 1, p50: 1 };
  return { calls: shares.length, worst: Math.min(...shares), p10: percentile(shares, 10), p50: percentile(shares, 50) };
}

/**
 * True when `next` starts with every message of `previous`, byte for byte
 * (per-message JSON), so a provider's prompt cache of `previous` still serves.
 * `system` strings, when given, must be equal too.
 */
export function isPureExtension(
  previous: readonly unknown[],
  next: readonly unknown[],
  system?: { previous?: string; next?: string },
): boolean {
  if (next.length < previous.length) return false;
  if (system && (system.previous ?? "") !== (system.next ?? "")) return false;
  for (let i = 0; i < previous.length; i++) if (jsonOf(previous[i]) !== jsonOf(next[i])) return false;
  return true;
}

/** Result of {@link cacheStability}. */
export interface CacheStability {
  /** Prompts compared (every prompt after the first). */
  compared: number;
  /** Of those, pure extensions of the prompt before. */
  stable: number;
  /** stable / compared (1 when nothing was compared). */
  share: number;
}

/**
 * Cache stability of a sequence of main prompts (one per model request, in
 * order): the share that purely extend the prompt before them. With
 * `systems` (the system prompt of each request), it must be unchanged too.
 */
export function cacheStability(
  prompts: readonly (readonly unknown[])[],
  systems?: readonly (string | undefined)[],
): CacheStability {
  let stable = 0;
  for (let i = 1; i < prompts.length; i++) {
    const system = systems ? { previous: systems[i - 1], next: systems[i] } : undefined;
    if (isPureExtension(prompts[i - 1] as unknown[], prompts[i] as unknown[], system)) stable++;
  }
  const compared = Math.max(0, prompts.length - 1);
  return { compared, stable, share: compared ? stable / compared : 1 };
}

const jsonCache = new WeakMap<object, string>();
function jsonOf(m: unknown): string {
  if (m === null || typeof m !== "object") return JSON.stringify(m) ?? "undefined";
  let j = jsonCache.get(m);
  if (j === undefined) {
    j = JSON.stringify(m);
    jsonCache.set(m, j);
  }
  return j;
}
