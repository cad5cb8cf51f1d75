import { afterEach, describe, expect, it } from "vitest";
import { isSummaryMessage, roleOf, textOf } from "../../src/host/messages.js";
import { USER_PART_STUB_FLOOR_CHARS } from "../../src/assembly/reduce-user-turn.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";
import { summaryOf } from "../support/view-summary.js";
import { readViewRecords, viewRecordPath } from "../../src/state/view-record.js";

/** A turn: the user's message, an `exec` call with a large output, and an answer. */
function turn(n: number): unknown[] {
  return [
    user(`Turn ${n}: run the big command (number ${n}) and set the timeout to ${n * 10}.`),
    call(`call_${n}`, "exec", { command: `run ${n}` }),
    result(`call_${n}`, "exec", logText(30_000, n)),
    assistant(`Turn ${n} done: the timeout is now ${n * 10}.`),
  ];
}

/** Turns 1..n whose user message the view shows verbatim or quotes whole under its own number. */
function turnsShown(view: { messages: readonly unknown[] }, n: number): number[] {
  const summary = summaryOf(view);
  return Array.from({ length: n }, (_, i) => i + 1).filter((k) => {
    const text = textOf(turn(k)[0]);
    return (
      summary.includes(`Turn ${k}: ${JSON.stringify(text)}`) ||
      view.messages.some((m) => !isSummaryMessage(m) && textOf(m) === text)
    );
  });
}

/** Summary blocks a view carries: the engine's message and any compaction summary the host loaded. */
function summaryBlocks(messages: readonly unknown[]): number {
  return messages.filter((m) => isSummaryMessage(m) || roleOf(m) === "compactionSummary").length;
}

describe("the prompt contract, through the engine", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>> | undefined;
  afterEach(async () => t?.cleanup());

  it("after 2026.4.24 loads a compaction entry the engine wrote, one block quotes every earlier user message", async () => {
    t = await createTestEngine({}, "2026.4");
    const s = { sessionId: "s-424", sessionKey: "agent:main:compacted" };
    const all = [1, 2, 3, 4, 5, 6].flatMap(turn);
    await t.engine.assemble({ ...s, messages: all.slice(0, 16), tokenBudget: 32_000 });
    // The host now loads its compaction entry (the engine's own summary) and the turns from turn 4 on.
    const entry = {
      role: "compactionSummary",
      summary: "[context-ledger summary]\nturns 1-3\n[/context-ledger summary]",
    };
    const view = await t.engine.assemble({ ...s, messages: [entry, ...all.slice(12)], tokenBudget: 32_000 });
    expect(summaryBlocks(view.messages)).toBe(1);
    expect(turnsShown(view, 6)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(summaryOf(view)).toContain('Turn 1: "Turn 1: run the big command (number 1) and set the timeout to 10."');
  });

  it("numbers the quoted turns as the conversation does when a 2026.9.6 tail drops the front", async () => {
    t = await createTestEngine({}, "2026.9");
    const s = { sessionId: "s-96", sessionKey: "agent:main:tail" };
    const all = Array.from({ length: 20 }, (_, i) => turn(i + 1)).flat();
    let view = { messages: [] as unknown[] };
    for (let n = 1; n <= 20; n++) {
      const upTo = n * 4 - 3;
      view = await t.engine.assemble({ ...s, messages: all.slice(Math.max(0, upTo - 24), upTo), tokenBudget: 20_000 });
    }
    expect(turnsShown(view, 20)).toHaveLength(20);
    expect(summaryOf(view)).toContain('Turn 1: "Turn 1: run the big command (number 1) and set the timeout to 10."');
  });

  it("stamps the summary message with the time of the newest message it quotes, never 0", async () => {
    t = await createTestEngine({}, "2026.9");
    const s = { sessionId: "s-time", sessionKey: "agent:main:stamp" };
    const all = Array.from({ length: 8 }, (_, i) => turn(i + 1)).flat();
    const view = await t.engine.assemble({ ...s, messages: all.slice(0, 29), tokenBudget: 3_000 });
    const message = view.messages.find(isSummaryMessage) as { timestamp?: number } | undefined;
    expect(message, "a summary is due").toBeDefined();
    const quoted = summaryOf(view).match(/Turn (\d+): "Turn/g) ?? [];
    const newest = Number(/\d+/.exec(quoted.at(-1) ?? "")?.[0]);
    const stamp = (all.find((m) => textOf(m).startsWith(`Turn ${newest}: run`)) as { timestamp: number }).timestamp;
    expect(message?.timestamp).toBe(stamp);
    expect(message?.timestamp).toBeGreaterThan(0);
  });

  it("never replaces a user message shorter than the floor by a stub, whatever the budget", async () => {
    t = await createTestEngine({}, "2026.9");
    const s = { sessionId: "s-floor", sessionKey: "agent:main:floor" };
    // Over the smallest budget (512 tokens), under the floor: the user's words stay.
    const short = `Please read this: ${"nightly report lines ".repeat(150)}`.slice(0, USER_PART_STUB_FLOOR_CHARS - 1);
    const view = await t.engine.assemble({ ...s, messages: [...turn(1), user(short)], tokenBudget: 1 });
    expect(textOf(view.messages.at(-1))).toBe(short);
    const long = `Read this: ${"all work ".repeat(Math.ceil((USER_PART_STUB_FLOOR_CHARS * 20) / 9))}`;
    const reduced = await t.engine.assemble({ ...s, messages: [...turn(1), user(long)], tokenBudget: 2_000 });
    const stub = textOf(reduced.messages.at(-1));
    expect(stub).toContain("[context-ledger artifact ledger:v1:sha256:");
    expect(stub.length).toBeLessThan(long.length);
  });

  it("carries a live turn whose results pass the budget with every call answered, its results offloaded", async () => {
    t = await createTestEngine({}, "2026.9");
    const calls = Array.from({ length: 24 }, (_, i) => ({
      type: "toolCall",
      id: `c${i}`,
      name: "exec",
      arguments: { command: `step ${i}` },
    }));
    const outputs = calls.map((_, i) => logText(6_000, i + 1));
    const liveCalls = { ...assistant(""), content: calls, stopReason: "toolUse" };
    const messages = [
      user("an earlier question"),
      assistant("an earlier answer"),
      user("run the 24 steps"),
      liveCalls,
      ...calls.map((c, i) => result(c.id, "exec", outputs[i]!)),
    ];
    // 24 outputs of 6,000 chars: about 36,000 tokens of results against a 27,904-token budget.
    const view = await t.engine.assemble({
      sessionId: "s",
      sessionKey: "agent:main:live",
      messages,
      tokenBudget: 27_904,
    });
    expect(view.estimatedTokens).toBeLessThanOrEqual(27_904);
    const results = view.messages.filter((m) => roleOf(m) === "toolResult");
    expect(results.map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(calls.map((c) => c.id));
    const store = t.services.store("main");
    for (const [i, m] of results.entries()) {
      const handle = /ledger:v1:sha256:[0-9a-f]{64}/.exec(textOf(m))?.[0];
      expect(handle, `result ${i} is a stub citing the store`).toBeDefined();
      expect((await store.read(handle!)).toString("utf8")).toBe(outputs[i]);
    }
  });

  it("records with each prompt the contract as the engine judged it, every clause it can judge kept", async () => {
    t = await createTestEngine({}, "2026.4");
    const s = { sessionId: "s-judged", sessionKey: "agent:main:judged" };
    const all = [1, 2, 3, 4, 5, 6].flatMap(turn);
    for (let n = 1; n <= 6; n++)
      await t.engine.assemble({ ...s, messages: all.slice(0, n * 4 - 1), tokenBudget: 6_000 });
    await t.engine.dispose();
    const views = await readViewRecords(viewRecordPath(t.services.root, "main", s.sessionKey));
    const last = views.at(-1);
    expect(last?.summary, "older turns left the window: a summary is due").not.toBeNull();
    expect(last?.offloaded.length, "an output over the size rule is stubbed").toBeGreaterThan(0);
    const byClause = new Map(last?.contract?.map((r) => [r.clause, r]));
    expect([...byClause.keys()].sort()).toEqual([
      "handles-resolve",
      "one-summary",
      "real-dates",
      "stub-size",
      "tool-pairs",
      "turn-numbers",
      "user-messages",
      "user-stub-floor",
    ]);
    for (const [clause, r] of byClause)
      expect(r.verdict, `${clause}: ${r.detail}`).toBe(
        clause === "real-dates" || clause === "turn-numbers" ? "request-body" : "kept",
      );
    expect(byClause.get("user-messages")?.detail).toMatch(/[1-9]\d* quoted whole in the summary/);
    expect(byClause.get("stub-size")?.detail).toMatch(/^[1-9]\d* stub/);
    expect(byClause.get("handles-resolve")?.detail).toMatch(/^[1-9]\d* handle/);
  });
});
