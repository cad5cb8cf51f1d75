// Types of latency.mjs for the TypeScript benches (bench/s3.ts).

/** assemble() timings (ms: n, min, p5, p50, p95, max, mean) of a session with `captures` stored outputs. */
export function captured(
  captures: number,
  calls: number,
  config?: Record<string, unknown>,
): Promise<{
  captures: number;
  n: number;
  min: number;
  p5: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}>;
