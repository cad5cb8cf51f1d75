// Small statistics helpers shared by the benchmarks.

/** Nearest-rank percentile (p in 0..100) of numbers; NaN for an empty list. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** p5 / p50 / p95 / min / max / mean and count of a sample. */
export function summarize(values) {
  const n = values.length;
  const mean = n ? values.reduce((s, v) => s + v, 0) / n : Number.NaN;
  return {
    n,
    min: round(Math.min(...values)),
    p5: round(percentile(values, 5)),
    p50: round(percentile(values, 50)),
    p95: round(percentile(values, 95)),
    max: round(Math.max(...values)),
    mean: round(mean),
  };
}

/** Rounds to 2 decimals (3 significant digits below 1). */
export function round(n) {
  if (!Number.isFinite(n)) return n;
  if (Math.abs(n) < 1) return Math.round(n * 1000) / 1000;
  return Math.round(n * 100) / 100;
}

/** Times `fn` (sync or async) `reps` times; returns the milliseconds of each run. */
export async function timeRuns(reps, fn) {
  const times = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return times;
}

/** A target check: `{ target, measured, unit, pass }` with `cmp` "<=" or ">=". */
export function check(measured, cmp, target, unit) {
  const pass = Number.isFinite(measured) && (cmp === "<=" ? measured <= target : measured >= target);
  return { target, cmp, measured: round(measured), unit, pass };
}

/** Thousands separators. */
export function fmtInt(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : String(n);
}
