import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenCounter } from "../../src/tokens/count-message.js";
import { isGenuineUserMessage } from "../../src/host/messages.js";
import { expectPaired } from "./conformance-suite.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";

// Engine-level invariants with the real tokenizer, offload and summary injection:
// what assemble returns, recounted exactly, never exceeds the host's budget.
describe("assemble() invariants over generated sessions", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  const counter = createTokenCounter({ encoding: "o200k_base" });
  beforeAll(async () => {
    t = await createTestEngine();
  });
  afterAll(async () => t.cleanup());

  const turn = fc.record({
    ask: fc.string({ minLength: 1, maxLength: 300 }),
    outputs: fc.array(fc.integer({ min: 0, max: 60_000 }), { maxLength: 3 }),
    answer: fc.string({ maxLength: 500 }),
  });

  it("fits the budget exactly, keeps pairs and the newest user turn, and is deterministic", async () => {
    let session = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1_500, max: 40_000 }),
        async (turns, budget) => {
          const messages: unknown[] = [];
          turns.forEach((tt, i) => {
            messages.push(user(`q${i} ${tt.ask}`));
            tt.outputs.forEach((chars, j) => {
              messages.push(call(`c${i}-${j}`, "exec", { command: `run ${i} ${j}` }));
              messages.push(result(`c${i}-${j}`, "exec", logText(chars, i * 10 + j)));
            });
            messages.push(assistant(`a${i} ${tt.answer}`));
          });
          const key = `agent:main:prop-${session++}`;
          const out = await t.engine.assemble({ sessionId: key, sessionKey: key, messages, tokenBudget: budget });
          const recount = counter.countMessages(out.messages);
          expect(recount).toBe(out.estimatedTokens);
          expect(out.estimatedTokens).toBeLessThanOrEqual(budget);
          expectPaired(out.messages);
          const newest = messages.findLast((m) => isGenuineUserMessage(m));
          expect(out.messages).toContainEqual(newest);
          const again = await t.engine.assemble({
            sessionId: `${key}-b`,
            sessionKey: `${key}-b`,
            messages,
            tokenBudget: budget,
          });
          expect(JSON.stringify(again.messages)).toBe(JSON.stringify(out.messages));
        },
      ),
      { numRuns: 40 },
    );
  });
});
