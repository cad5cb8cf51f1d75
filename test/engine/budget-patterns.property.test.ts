import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenCounter } from "../../src/tokens/count-message.js";
import { isGenuineUserMessage, roleOf } from "../../src/host/messages.js";
import { expectPaired } from "./conformance-suite.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";

// The budget invariants (fill, cache stability) under the budget sequences hosts really pass: a
// session grows call by call and every model request assembles once per budget
// of the pattern (2026.9.6's tool loop: three budgets per request).
type Budgets = (turn: number, turns: number) => number[];
const phased =
  (bs: number[]): Budgets =>
  (t, n) => [bs[Math.min(bs.length - 1, Math.floor((t * bs.length) / n))] as number];
const PATTERNS: Record<string, (scale: number) => Budgets> = {
  constant: (s) => () => [Math.round(8_000 * s)],
  "tool-loop triple": (s) => () => [Math.round(4_264 * s), Math.round(7_988 * s), Math.round(1_718 * s)],
  growing: (s) => phased([2_000, 4_000, 8_000, 32_000].map((b) => Math.round(b * s))),
  shrinking: (s) => phased([32_000, 8_000, 2_000].map((b) => Math.round(b * s))),
};

const roundArb = fc.record({
  chars: fc.integer({ min: 0, max: 12_000 }),
  tool: fc.constantFrom("exec", "http_get", "read", "ledger_fetch"),
});
const turnArb = fc.record({
  ask: fc.integer({ min: 1, max: 400 }),
  rounds: fc.array(roundArb, { maxLength: 3 }),
  thinking: fc.boolean(),
  answer: fc.integer({ min: 0, max: 1_500 }),
});

const stamp = (m: unknown) => (m as { timestamp: number }).timestamp;

describe("assemble() invariants under host budget patterns (property-based)", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  const counter = createTokenCounter({ encoding: "o200k_base" });
  beforeAll(async () => {
    t = await createTestEngine({ clearing: { keepToolResults: 2, clearAtLeastTokens: 500, excludeTools: ["read"] } });
  });
  afterAll(async () => t.cleanup());

  let session = 0;
  for (const [name, pattern] of Object.entries(PATTERNS)) {
    it(`${name}: exact count ≤ budget, pairs kept, order preserved, newest user turn present, starts at a user turn`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(turnArb, { minLength: 2, maxLength: 10 }),
          fc.double({ min: 0.5, max: 1.5, noNaN: true }),
          async (turns, scale) => {
            const key = `agent:main:pattern-${session++}`;
            const budgets = pattern(scale);
            const history: unknown[] = [];
            let calls = 0;
            const request = async (turn: number) => {
              for (const budget of budgets(turn, turns.length)) {
                const out = await t.engine.assemble({
                  sessionId: key,
                  sessionKey: key,
                  messages: history.slice(),
                  tokenBudget: budget,
                });
                const recount = counter.countMessages(out.messages);
                expect(recount).toBe(out.estimatedTokens);
                expect(out.estimatedTokens).toBeLessThanOrEqual(budget);
                expectPaired(out.messages);
                const stamps = out.messages.map(stamp);
                expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
                expect(new Set(stamps).size).toBe(stamps.length);
                const newest = history.findLast((m) => isGenuineUserMessage(m));
                expect(stamps).toContain(stamp(newest));
                expect(roleOf(out.messages[0])).toBe("user");
              }
            };
            for (let i = 0; i < turns.length; i++) {
              const tt = turns[i]!;
              history.push(user(`q${i} ${"why ".repeat(tt.ask)}`));
              await request(i);
              for (const [j, r] of tt.rounds.entries()) {
                const id = `call_${i}_${j}-x`;
                const c = call(id, r.tool, { n: i * 10 + j });
                if (tt.thinking)
                  (c.content as unknown[]).unshift({ type: "thinking", thinking: `plan ${i} ${"hmm ".repeat(200)}` });
                history.push(c, result(id, r.tool, logText(r.chars, ++calls)));
                await request(i);
              }
              history.push(assistant(`a${i} ${"done ".repeat(tt.answer)}`));
            }
          },
        ),
        { numRuns: 12 },
      );
    }, 120_000);
  }
});
