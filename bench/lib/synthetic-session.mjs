// The 200-turn tool-heavy session of the benchmarks, generated from a fixed
// seed: each turn is a user request, 1-3 tool rounds whose outputs range from
// 2 KB to 500 KB (log-uniform: JSON with schemas, logs, HTML, test runs), and
// a final answer.
import { OUTPUT_KINDS, prose } from "./content.mjs";
import { createMessageBuilder } from "./messages.mjs";
import { createRng, int, logUniform, pick } from "./rng.mjs";

/** Default seed of the synthetic session. */
export const SESSION_SEED = 20260906;

/**
 * Generates the session as turns. Same options, same bytes (and fresh objects
 * on every call, so engines in one process do not share per-object caches).
 * @param {{ seed?: number, turns?: number, minBytes?: number, maxBytes?: number }} [options]
 * @returns {{ turns: { user: object, steps: { call: object, result: object }[], answer: object }[], outputBytes:
 * number[] }}
 */
export function generateToolSession(options = {}) {
  const rng = createRng(options.seed ?? SESSION_SEED);
  const count = options.turns ?? 200;
  const minBytes = options.minBytes ?? 2_000;
  const maxBytes = options.maxBytes ?? 500_000;
  const b = createMessageBuilder();
  const kinds = Object.keys(OUTPUT_KINDS);
  const turns = [];
  const outputBytes = [];
  let calls = 0;
  for (let t = 1; t <= count; t++) {
    const user = b.user(`Turn ${t}: ${prose(rng, int(rng, 60, 400))}`);
    const steps = [];
    const rounds = int(rng, 1, 3);
    for (let r = 0; r < rounds; r++) {
      const kind = OUTPUT_KINDS[pick(rng, kinds)];
      const id = `call_${++calls}`;
      const size = logUniform(rng, minBytes, maxBytes);
      const text = kind.make(size, rng);
      outputBytes.push(Buffer.byteLength(text));
      steps.push({
        call: b.call(id, kind.tool, kind.args(rng), rng() < 0.3 ? prose(rng, 80) : undefined),
        result: b.result(id, kind.tool, text),
      });
    }
    const answer = b.assistant(prose(rng, int(rng, 100, 700)));
    turns.push({ user, steps, answer });
  }
  return { turns, outputBytes };
}

/**
 * A flat history of `n` messages for latency runs: turns of user, tool call,
 * tool result (mostly 300-3,000 chars, every 10th 20,000 chars so offload
 * happens), answer. Built fast: lines are drawn from a small pool.
 */
export function generateLongHistory(n, seed = 7) {
  const rng = createRng(seed);
  const b = createMessageBuilder();
  const pool = Array.from(
    { length: 64 },
    (_, i) =>
      `2026-11-22T03:${String(i % 60).padStart(2, "0")}:00Z INFO worker-${i % 7} processed batch ${i * 37} in ${(i * 53) % 1000} ms status=ok`,
  );
  const body = (chars) => {
    const lines = [];
    let len = 0;
    while (len < chars) {
      const line = pool[Math.floor(rng() * pool.length)];
      lines.push(line);
      len += line.length + 1;
    }
    return lines.join("\n");
  };
  const out = [];
  for (let t = 0; out.length < n; t++) {
    out.push(b.user(`Turn ${t}: please run the build and tell me what failed.`));
    out.push(b.call(`call-${t}`, "exec", { command: `npm run build -- --turn ${t}` }));
    out.push(b.result(`call-${t}`, "exec", body(t % 10 === 9 ? 20_000 : int(rng, 300, 3_000))));
    out.push(b.assistant(`Turn ${t} done: build step ${t} finished; nothing failed in batch ${t}.`));
  }
  return out.slice(0, n);
}
