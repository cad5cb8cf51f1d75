// Types of stats.mjs for the TypeScript benches (bench/long-haul.ts).

/** Nearest-rank percentile (p in 0..100) of numbers; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number;
/** Rounds to 2 decimals (3 significant digits below 1). */
export function round(n: number): number;
/** A target check: `{ target, measured, unit, pass }` with `cmp` "<=" or ">=". */
export function check(
  measured: number,
  cmp: "<=" | ">=",
  target: number,
  unit: string,
): { target: number; cmp: string; measured: number; unit: string; pass: boolean };
