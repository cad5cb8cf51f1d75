/**
 * A seeded generator of malformed and extreme engine calls: unknown roles and
 * blocks, images, missing fields, wrong types, huge strings, lone surrogates,
 * invalid UTF-8 decoded as latin1, deep JSON, cycles, hostile budgets and keys.
 */
import { prng } from "./prng.js";

/** mulberry32: small, fast, seeded. */
export const createPrng = prng;

// Built once and reused, so memory stays sane: 1 MB ASCII, 300 K chars of surrogate debris, 512 K of base64.
const HUGE = [
  "x".repeat(1024 * 1024),
  "\ud800a\udfffb😀".repeat(50_000),
  Buffer.alloc(384 * 1024, 7).toString("base64"),
];

function deepJson(depth: number): unknown {
  let v: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { nested: v };
  return v;
}

/** Generator state: one PRNG and helpers. */
export function createHostileGenerator(seed: number) {
  const rand = createPrng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  const chance = (p: number) => rand() < p;

  const invalidUtf8 = () =>
    Buffer.from(Array.from({ length: 20 + int(4000) }, () => (chance(0.3) ? 0x80 + int(128) : 32 + int(95)))).toString(
      "latin1",
    );
  const weirdString = (): unknown =>
    pick<() => unknown>([
      () => "",
      () => "plain text ".repeat(1 + int(50)),
      () => "\ud800",
      () => "ok \udc00 tail \ud83d",
      () => invalidUtf8(),
      () => "\u0000\u0001\u001b[31mred\u001b[0m",
      () => "../../etc/passwd",
      () => "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ".repeat(int(300)),
      () => (chance(0.005) ? pick(HUGE) : "y".repeat(int(12_000))),
      () => 42,
      () => null,
      () => undefined,
      () => ({ toString: 1 }),
      () => ["array", "of", "strings"],
      () => Number.NaN,
    ])();

  const block = (): unknown =>
    pick<() => unknown>([
      () => ({ type: "text", text: weirdString() }),
      () => ({ type: "text" }),
      () => ({ type: "image", data: Buffer.alloc(int(5000), 1).toString("base64"), mimeType: "image/png" }),
      () => ({ type: "image", source: { type: "url", url: "http://x/y.png" } }),
      () => ({ type: "thinking", thinking: weirdString() }),
      () => ({
        type: "toolCall",
        id: weirdString(),
        name: weirdString(),
        arguments: chance(0.3) ? deepJson(int(3000)) : { a: weirdString() },
      }),
      () => ({ type: "hologram", payload: weirdString() }),
      () => ({ type: 7 }),
      () => null,
      () => "bare string block",
      () => 3.14,
    ])();

  const content = (): unknown =>
    pick<() => unknown>([
      () => weirdString(),
      () => Array.from({ length: int(5) }, block),
      () => ({ not: "an array" }),
      () => null,
      () => undefined,
    ])();

  const message = (): unknown => {
    const role = pick<unknown>([
      "user",
      "assistant",
      "toolResult",
      "system",
      "developer",
      "tool",
      "ghost",
      "",
      5,
      null,
      undefined,
    ]);
    const m: Record<string, unknown> = {
      role,
      content: content(),
      timestamp: pick<unknown>([Date.now(), -1, "yesterday", Number.NaN, undefined]),
    };
    if (role === "toolResult" || chance(0.1)) {
      m.toolCallId = pick<unknown>([`c${int(20)}`, "", 12, null, undefined]);
      m.toolName = pick<unknown>(["exec", "web_fetch", "", 1, undefined]);
      if (chance(0.3))
        m.content = [{ type: "text", text: chance(0.5) ? invalidUtf8().repeat(1 + int(20)) : weirdString() }];
      if (chance(0.1))
        m.details = {
          aggregated: weirdString(),
          fullOutputPath: pick(["/etc/passwd", "../../x", "/nonexistent/spill.txt", 9]),
        };
    }
    if (chance(0.05)) delete m.role;
    if (chance(0.05)) delete m.content;
    if (chance(0.02)) m.self = m;
    return pick<unknown>([m, m, m, m, m, m, m, m, null, 17, "a string message", [m]]);
  };

  /** A well-formed tool turn, so sessions also carry realistic pairs. */
  const goodTurn = (tag: string): unknown[] => [
    { role: "user", content: `question ${tag}`, timestamp: Date.now() },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: `t-${tag}`, name: "exec", arguments: { cmd: "ls" } }],
      timestamp: Date.now(),
    },
    {
      role: "toolResult",
      toolCallId: `t-${tag}`,
      toolName: "exec",
      content: [{ type: "text", text: "line\n".repeat(20 + int(600)) }],
      timestamp: Date.now(),
    },
    { role: "assistant", content: [{ type: "text", text: `answer ${tag}` }], timestamp: Date.now() },
  ];

  const budget = (): unknown =>
    pick<unknown>([
      Number.NaN,
      -1,
      -1e9,
      0,
      1,
      0.5,
      511,
      512,
      600,
      1000 + int(4000),
      8000 + int(100_000),
      1e15,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      "4000",
      null,
      undefined,
      {},
      2 ** 31,
    ]);

  const key = (): unknown =>
    pick<unknown>([`k-${int(400)}`, "", 0, null, undefined, { k: 1 }, "k\u0000nul", "\ud800", "x".repeat(10_000)]);

  return { rand, int, pick, chance, message, goodTurn, budget, key, weirdString };
}
