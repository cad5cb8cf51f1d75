import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estimateRawTokens } from "../../src/host/raw-tally.js";
import { createTestEngine } from "../support/engine-harness.js";
import { syntheticSession } from "../support/synthetic-session.js";
import { precheck424, precheck96 } from "./precheck-reference.js";

// The reset loop in numbers: 2026.4.24's rule sizes the raw transcript and routes a
// session whose engine built a small, valid prompt into compaction and reset;
// with the assembled view and its authority the prompt is admitted and the raw
// pressure shows up only as maintenance debt.
describe("precheck rules on a synthetic 50,000-message session", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  const messages = syntheticSession({ messages: 50_000, seed: 7, maxOutputChars: 13_000 });
  beforeAll(async () => {
    t = await createTestEngine();
  });
  afterAll(async () => t.cleanup());

  it("is tool-heavy and large: ~20 million stored tokens", () => {
    const raw = messages.reduce<number>((s, m) => s + estimateRawTokens(m), 0);
    expect(messages).toHaveLength(50_000);
    expect(raw).toBeGreaterThan(18_000_000);
    expect(raw).toBeLessThan(24_000_000);
  });

  it("2026.4.24's rule (raw history counts): compaction, the reset path; 2026.9.x's assembled rule: admitted, pressure reported as debt", async () => {
    const contextWindow = 128_000;
    const view = await t.engine.assemble({
      sessionId: "big",
      sessionKey: "agent:main:big",
      messages,
      tokenBudget: contextWindow - 20_000,
    });
    const input = {
      assembled: view.messages,
      unwindowed: messages,
      systemPromptChars: 8_000,
      promptChars: 200,
      contextWindow,
      reserveTokens: 20_000,
    };
    const raw = precheck424(input);
    expect(raw.route).toBe("compact");
    expect(raw.overflowTokens).toBeGreaterThan(1_000_000);
    expect(precheck96({ ...input, ownsCompaction: true })).toBe("skipped");
    const assembledOnly = precheck96({ ...input, ownsCompaction: false });
    expect(assembledOnly).not.toBe("skipped");
    expect((assembledOnly as { route: string }).route).toBe("fits");
    const debt = (view as { ledger?: { debt: { rawHistoryTokens: number; debtTokens: number; promptBudget: number } } })
      .ledger?.debt;
    expect(debt?.promptBudget).toBe(108_000);
    expect(debt?.debtTokens).toBe((debt?.rawHistoryTokens ?? 0) - 108_000);
    expect(view.estimatedTokens).toBeLessThanOrEqual(108_000);
    expect(view.estimatedTokens).toBeGreaterThan(0.9 * 108_000 * 0.9);
  });
});
