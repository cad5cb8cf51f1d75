/** mulberry32: a small deterministic PRNG, so every run sees the same bytes. */
export function createRng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer in [lo, hi]. */
export const int = (rng, lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
/** One element of `xs`. */
export const pick = (rng, xs) => xs[Math.floor(rng() * xs.length)];
/** Log-uniform integer in [lo, hi]: sizes from 2 KB to 500 KB spread evenly by order of magnitude. */
export const logUniform = (rng, lo, hi) => Math.round(Math.exp(Math.log(lo) + rng() * (Math.log(hi) - Math.log(lo))));
