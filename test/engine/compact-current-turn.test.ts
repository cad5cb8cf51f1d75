import { afterEach, describe, expect, it } from "vitest";
import { assistant, createTestEngine, user } from "../support/engine-harness.js";
import { conversationOf, summaryOf } from "../support/view-summary.js";

describe("a forced compact() plans on the current turn's view", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>> | undefined;
  afterEach(async () => t?.cleanup());

  it("after a turn that passed more messages (2026.4.24 loads the session from its newest compaction on)", async () => {
    t = await createTestEngine({}, "2026.4");
    const s = { sessionId: "s-424", sessionKey: "agent:main:fewer-messages" };
    const pairs: unknown[] = [];
    for (let i = 0; i < 60; i++)
      pairs.push(user(`Turn ${i}: check shard ${i}`), assistant(`Shard ${i}: ${"steady ".repeat(150)}`));
    // Turn 60 under a small budget: a long history, and a view that holds only the newest turn.
    const first = [...pairs, user(`Turn 60: summarise everything. ${"context ".repeat(1_500)}`)];
    const small = await t.engine.assemble({ ...s, messages: first, tokenBudget: 3_000 });
    expect(conversationOf(small)).toHaveLength(1);
    // The next turn: the host passes only what follows its compaction entry, and a budget that holds all of it.
    const next = [...first.slice(80), assistant("Summarised."), user("Turn 61: and now?")];
    const view = await t.engine.assemble({ ...s, messages: next, tokenBudget: 32_000 });
    // Everything passed is shown, and the 40 user messages the host left out are quoted in the summary.
    expect(conversationOf(view)).toHaveLength(next.length);
    expect(summaryOf(view)).toContain('Turn 1: "Turn 0: check shard 0"');
    expect(summaryOf(view)).toContain('Turn 40: "Turn 39: check shard 39"');
    const r = (await t.engine.compact({ ...s, force: true, tokenBudget: 32_000 })) as {
      compacted: boolean;
      reason?: string;
    };
    expect(r).toMatchObject({ compacted: true });
    const after = await t.engine.assemble({ ...s, messages: next, tokenBudget: 32_000 });
    expect(after.messages.length).toBeLessThan(next.length);
    expect(after.messages.at(-1)).toEqual(next.at(-1));
  });
});
