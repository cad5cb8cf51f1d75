import { assistant, call, logText, result, user } from "./engine-harness.js";
import { prng } from "./prng.js";

export { prng };

/**
 * A long tool-heavy session generated from a seed: `messages` messages in
 * turns of user, tool call, tool result (sizes drawn up to `maxOutputChars`),
 * answer. Outputs reuse a few big base strings (slices), so 80 MB of
 * transcript costs little memory.
 */
export function syntheticSession(options: { messages: number; seed?: number; maxOutputChars?: number }): unknown[] {
  const rand = prng(options.seed ?? 42);
  const max = options.maxOutputChars ?? 3_000;
  const base = [
    logText(max + 10, 1),
    `{"items":[${Array.from({ length: max / 40 }, (_, i) => `{"id":${i},"ok":true}`).join(",")}]}`,
  ];
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
