import { assistant, call, logText, result, user } from "./engine-harness.js";

/** A tiny deterministic PRNG (mulberry32), so generated sessions are identical for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A long tool-heavy session generated from a seed: `messages` messages in
 * turns of user, tool call, tool result (sizes drawn up to `maxOutputChars`),
 * answer. Outputs reuse a few big base strings (slices), so 80 MB of
 * transcript costs little memory.
 */
export function syntheticSession(options: { messages: number; seed?: number; maxOutputChars?: number }): unknown[] {
  const rand = prng(options.seed ?? 42);
  const max = options.maxOutputChars ?? 3_000;
  const base = [logText(max + 10, 1), `{"items":[${Array.from({ length: max / 40 }, (_, i) => `{"id":${i},"ok":true}`).join(",")}]}`];
  const out: unknown[] = [];
  for (let t = 0; out.length < options.messages; t++) {
    const size = Math.floor(rand() * max);
    const b = base[t % 2] as string;
    out.push(user(`Turn ${t}: check shard ${t % 97}.`));
    out.push(call(`call-${t}`, t % 2 ? "http_get" : "exec", { target: `shard-${t % 97}` }));
    out.push(result(`call-${t}`, t % 2 ? "http_get" : "exec", b.slice(0, size)));
    out.push(assistant(`Shard ${t % 97} checked; ${size} bytes of output.`));
  }
  return out.slice(0, options.messages);
}
