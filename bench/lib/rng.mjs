import { prng } from "../../test/support/prng.ts";

/** mulberry32, shared with the tests (Node 24 strips the types). */
export const createRng = prng;

/** Integer in [lo, hi]. */
export const int = (rng, lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
/** One element of `xs`. */
export const pick = (rng, xs) => xs[Math.floor(rng() * xs.length)];
/** Log-uniform integer in [lo, hi]: sizes from 2 KB to 500 KB spread evenly by order of magnitude. */
export const logUniform = (rng, lo, hi) => Math.round(Math.exp(Math.log(lo) + rng() * (Math.log(hi) - Math.log(lo))));
