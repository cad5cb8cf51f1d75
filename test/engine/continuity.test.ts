import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, conversation, createTestEngine, logText, result, user } from "../support/engine-harness.js";
import { factRecall, generatePlantedConversation } from "../support/planted-facts.js";
import { isSummaryMessage } from "../../src/host/messages.js";
import { MIN_USER_MESSAGES_CHARS } from "../../src/assembly/budget.js";
import { conversationOf, summaryOf } from "../support/view-summary.js";

const promptText = (view: { messages: unknown[] }) => `${summaryOf(view)}\n${JSON.stringify(view.messages)}`;

describe("continuity through the engine", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  beforeAll(async () => {
    t = await createTestEngine();
  });
  afterAll(async () => t.cleanup());

  it("keeps ≥ 99% of 40 planted facts after 60 turns and 3 compactions (deterministic summarizer)", async () => {
    const convo = generatePlantedConversation({ seed: 1, turns: 60 });
    const session = { sessionId: "facts", sessionKey: "agent:main:facts" };
    const budget = 12_000;
    let view = { messages: [] as unknown[] };
    let compactions = 0;
    for (let turn = 1; turn < convo.turnStarts.length; turn++) {
      const history = convo.messages.slice(0, convo.turnStarts[turn]);
      view = (await t.engine.assemble({ ...session, messages: history, tokenBudget: budget })) as typeof view;
      if (turn % 15 === 0) {
        const res = await t.engine.compact({ ...session, force: true, tokenBudget: budget });
        if (res.compacted) compactions++;
      }
    }
    view = (await t.engine.assemble({ ...session, messages: convo.messages, tokenBudget: budget })) as typeof view;
    const recall = factRecall(promptText(view), convo.facts);
    expect(compactions).toBe(3);
    expect(convo.facts).toHaveLength(40);
    expect(recall.share).toBeGreaterThanOrEqual(0.99);
    console.info(
      `[continuity] recall ${recall.recalled}/${recall.total} (${(recall.share * 100).toFixed(0)}%) after ${compactions} compactions`,
    );
  });

  it("100 forced compactions: the summary neither nests nor grows past its bound", async () => {
    const convo = generatePlantedConversation({ seed: 2, turns: 60 });
    const session = { sessionId: "cycles", sessionKey: "agent:main:cycles" };
    let messages: unknown[] = convo.messages.slice();
    for (let i = 0; i < 100; i++) {
      const view = await t.engine.assemble({ ...session, messages, tokenBudget: 6_000 });
      await t.engine.compact({ ...session, force: true, tokenBudget: 6_000 });
      const summary = summaryOf(view);
      // Its bound, and on top the user's messages within their share of the budget (at least 6,000 chars).
      expect(summary.length).toBeLessThanOrEqual(4_000 + Math.max(MIN_USER_MESSAGES_CHARS, 0.15 * 6_000 * 3));
      expect(summary.split("[context-ledger summary]").length - 1).toBeLessThanOrEqual(1);
      // Feed the summary back as if the model had quoted it: it must not be summarised again.
      messages = [
        ...messages,
        user(`cycle ${i}: as you said: ${summary.slice(0, 500)}`),
        { role: "assistant", content: [{ type: "text", text: `ok ${i}` }] },
      ];
    }
  });

  it("/reset starts a new epoch: nothing from before leaks into the new conversation's summary", async () => {
    const session = { sessionId: "same-id", sessionKey: "agent:main:reset" };
    const before = generatePlantedConversation({ seed: 3, turns: 30 });
    await t.engine.assemble({ ...session, messages: before.messages, tokenBudget: 4_000 });
    await t.engine.compact({ ...session, force: true, tokenBudget: 4_000 });
    const fresh = [
      user("Brand new conversation after /reset: list the files in src."),
      { role: "assistant", content: [{ type: "text", text: "Sure." }] },
      user("and now?"),
    ];
    const view = (await t.engine.assemble({ ...session, messages: fresh, tokenBudget: 4_000 })) as {
      messages: unknown[];
    };
    expect(summaryOf(view)).toBe("");
    expect(factRecall(promptText(view), before.facts).recalled).toBe(0);
  });

  it("a rewind (shorter, diverged transcript) rolls the summary back instead of keeping stale turns", async () => {
    const session = { sessionId: "rewind", sessionKey: "agent:main:rewind" };
    const convo = generatePlantedConversation({ seed: 4, turns: 40 });
    await t.engine.assemble({ ...session, messages: convo.messages, tokenBudget: 5_000 });
    const cut = convo.turnStarts[10] as number;
    const branch = [
      ...convo.messages.slice(0, cut),
      user("On second thought, take another approach entirely."),
      { role: "assistant", content: [{ type: "text", text: "Switching approach." }] },
      user("go"),
    ];
    const view = (await t.engine.assemble({ ...session, messages: branch, tokenBudget: 5_000 })) as {
      messages: unknown[];
    };
    const later = convo.facts.filter((f) => f.turn >= 11);
    expect(later.length).toBeGreaterThan(0);
    const leaked = later.filter((f) => promptText(view).includes(f.key));
    expect(leaked).toEqual([]);
    expect(view.messages.at(-1)).toEqual(branch.at(-1));
  });

  it("the summary travels as the view's first message, and a view handed back keeps it byte for byte", async () => {
    const session = { sessionId: "carry", sessionKey: "agent:main:carry" };
    const convo = generatePlantedConversation({ seed: 5, turns: 30 });
    const view = (await t.engine.assemble({ ...session, messages: convo.messages, tokenBudget: 5_000 })) as {
      messages: unknown[];
      systemPromptAddition?: unknown;
    };
    expect(view.systemPromptAddition).toBeUndefined();
    expect(summaryOf(view)).toContain("[context-ledger summary]");
    expect(isSummaryMessage(view.messages[0])).toBe(true);
    // 2026.9.x hands the turn's view to its in-loop calls under a larger budget: same summary, same messages.
    const again = await t.engine.assemble({ ...session, messages: view.messages, tokenBudget: 8_000 });
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(view.messages));
  });

  it("a view handed back and re-planned inside a turn leaves the record telling each turn once", async () => {
    const session = { sessionId: "handed", sessionKey: "agent:main:handed" };
    const convo = conversation(20, 3_000);
    const turns = (n: number) => convo.slice(0, n * 4);
    const main = async (n: number) =>
      (
        await t.engine.assemble({
          ...session,
          messages: [...turns(n), user(`Turn ${n}: and now?`)],
          tokenBudget: 6_000,
        })
      ).messages;
    // A turn's main request, then its in-loop call: the view handed back with a call and result, under a budget that
    // re-plans it (2026.9.6 passes its in-turn calls several budget classes).
    const view = await main(12);
    const inTurn = [...view, call("live", "exec", { command: "ls" }), result("live", "exec", logText(3_000))];
    await t.engine.assemble({ ...session, messages: inTurn, tokenBudget: 3_500 });
    const later = summaryOf({ messages: await main(16) });
    const told = Number(/^Earlier conversation: turns 1-(\d+),/m.exec(later)?.[1]);
    expect(told).toBeGreaterThan(0);
    // The condensed part counts the conversation's turns and calls, each once.
    const condensed = /^Turns 1-(\d+) \(condensed; (\d+) tool calls/m.exec(later);
    if (condensed) {
      expect(Number(condensed[1])).toBeLessThanOrEqual(told);
      expect(Number(condensed[2])).toBeLessThanOrEqual(told);
    }
    // Each turn the summary tells in detail appears once.
    const detailed = [...later.matchAll(/^Turn (\d+): (?:Answer|Tools)/gm)].map((m) => Number(m[1]));
    expect(new Set(detailed).size).toBe(detailed.length);
    expect(detailed.every((n) => n <= told)).toBe(true);
  });

  it("when the host drops the transcript's front where the summary ends, the summary still tells those turns", async () => {
    const session = { sessionId: "front", sessionKey: "agent:main:front" };
    const convo = generatePlantedConversation({ seed: 6, turns: 30 });
    const first = (await t.engine.assemble({ ...session, messages: convo.messages, tokenBudget: 5_000 })) as {
      messages: unknown[];
    };
    expect(summaryOf(first)).toContain("[context-ledger summary]");
    // The host now passes only the window's messages (its byte-capped tail), and a budget that holds them all.
    const tail = conversationOf(first);
    const next = [...tail, { role: "assistant", content: [{ type: "text", text: "Noted." }] }, user("and now?")];
    const view = await t.engine.assemble({ ...session, messages: next, tokenBudget: 60_000 });
    expect(conversationOf(view)).toHaveLength(next.length);
    // Same turns told (the header names them); the larger room may show them in more detail.
    const header = (text: string) => text.split("\n")[1];
    expect(header(summaryOf(first))).toMatch(/^Earlier conversation: turns 1-\d+/);
    expect(header(summaryOf(view))).toBe(header(summaryOf(first)));
  });
});
