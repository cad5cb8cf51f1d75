import { beforeAll, describe, expect, it } from "vitest";
import { createAnthropicRules, type AnthropicRules, type AnthropicVerdict } from "../host/anthropic-rules.js";
import { ANTHROPIC_TOKEN_PROXY } from "../host/anthropic-units.js";
import { loadTokenCounter, type TokenCounter } from "../host/token-count.js";

// The strict Messages endpoint must refuse what Anthropic refuses: each rule is shown rejecting a bad request.
let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});
let clock = 0;
const rules = (contextWindow = 32_000): AnthropicRules =>
  createAnthropicRules({ contextWindow, counter, now: () => clock });
const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown) => ({ role: "assistant", content });
const toolUse = (id: string) => ({ type: "tool_use", id, name: "exec", input: { command: "ls" } });
const toolResult = (id: string, content = "done") => ({ type: "tool_result", tool_use_id: id, content });
const text = (t: string, cache?: "5m" | "1h") => ({
  type: "text",
  text: t,
  ...(cache ? { cache_control: { type: "ephemeral", ...(cache === "1h" ? { ttl: "1h" } : {}) } } : {}),
});
const messageOf = (v: AnthropicVerdict): string => (v.ok ? "ok" : v.error.error.message);

describe("a strict Anthropic Messages endpoint (the mock's rules)", () => {
  it("accepts a paired tool turn, merged with the host's trailing user message, and counts it by the proxy", () => {
    const v = rules().check({
      max_tokens: 100,
      messages: [
        user("run it"),
        assistant([toolUse("toolu_1")]),
        user([toolResult("toolu_1")]),
        user("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> note"),
      ],
    });
    expect(messageOf(v)).toBe("ok");
    // Each message's blocks, o200k tokens (+4 framing on a message's first block) × the proxy factor, rounded up.
    const proxy = (t: string) => Math.ceil((counter(t) + 4) * ANTHROPIC_TOKEN_PROXY.factor);
    const expected = ["run it", 'exec{"command":"ls"}', "done", "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> note"];
    expect(v.promptTokens).toBe(expected.map(proxy).reduce((a, b) => a + b, 0));
    expect(v).toMatchObject({ ok: true, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("refuses a conversation that starts with the assistant", () => {
    expect(messageOf(rules().check({ messages: [assistant("hi"), user("yo")] }))).toBe(
      'messages: first message must use the "user" role',
    );
  });

  it("refuses a tool_use left unanswered by the next user turn", () => {
    const v = rules().check({ messages: [user("go"), assistant([toolUse("toolu_7")]), user("something else")] });
    expect(messageOf(v)).toBe(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_7. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });

  it("refuses a tool_result that does not answer the assistant turn right before it", () => {
    const late = rules().check({
      messages: [
        user("go"),
        assistant([toolUse("toolu_1")]),
        user([toolResult("toolu_1")]),
        assistant("ok"),
        user([toolResult("toolu_1")]),
      ],
    });
    expect(messageOf(late)).toContain(
      "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1",
    );
    const orphan = rules().check({ messages: [user([toolResult("toolu_9")])] });
    expect(messageOf(orphan)).toContain("unexpected `tool_use_id` found in `tool_result` blocks: toolu_9");
  });

  it("refuses empty text blocks, in a message and in the system prompt", () => {
    expect(messageOf(rules().check({ messages: [user([text("hi"), text("")])] }))).toBe(
      "messages.0.content.1.text: text content blocks must be non-empty",
    );
    expect(messageOf(rules().check({ messages: [user("")] }))).toContain(
      "messages.0: all messages must have non-empty content",
    );
    expect(messageOf(rules().check({ system: [text(" ")], messages: [user("hi")] }))).toBe(
      "system.0.text: text content blocks must be non-empty",
    );
  });

  it("with thinking on, refuses a current-turn thinking block that is not byte-identical to the one sent", () => {
    const r = rules();
    const signature = r.issueThinking("I should run ls.");
    const turn = (thinking: string) => ({
      thinking: { type: "enabled", budget_tokens: 1_024 },
      messages: [
        user("go"),
        assistant([{ type: "thinking", thinking, signature }, toolUse("toolu_1")]),
        user([toolResult("toolu_1")]),
      ],
    });
    expect(messageOf(r.check(turn("I should run ls.")))).toBe("ok");
    expect(messageOf(r.check(turn("I should run ls. ")))).toBe(
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
    const stripped = r.check({
      ...turn(""),
      messages: [user("go"), assistant([toolUse("toolu_1")]), user([toolResult("toolu_1")])],
    });
    expect(messageOf(stripped)).toContain(
      "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`",
    );
    // The host's own text message after the tool results joins their user turn: the tool loop goes on.
    const trailer = (thinking: string) => [...turn(thinking).messages, user("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>")];
    expect(messageOf(r.check({ ...turn(""), messages: trailer("I should run ls. ") }))).toContain(
      "Invalid `signature`",
    );
    // An earlier turn's thinking is not checked (the API drops it), and without thinking nothing is.
    const earlier = turn("changed");
    expect(messageOf(r.check({ ...earlier, messages: [...earlier.messages, assistant("done"), user("next")] }))).toBe(
      "ok",
    );
    expect(messageOf(r.check({ messages: earlier.messages }))).toBe("ok");
  });

  it("refuses more than 4 cache_control breakpoints", () => {
    const marked = [1, 2, 3, 4, 5].map((n) => text(`part ${n}`, "5m"));
    expect(messageOf(rules().check({ messages: [user(marked)] }))).toBe(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
  });

  it("refuses a prompt over the window, and a prompt plus max_tokens over it, with Anthropic's 400 messages", () => {
    const big = user("word ".repeat(3_000));
    const fits = rules(8_000).check({ messages: [big], max_tokens: 1_000 });
    expect(fits.ok).toBe(true);
    const tokens = fits.promptTokens;
    expect(tokens).toBe(Math.ceil((counter("word ".repeat(3_000)) + 4) * ANTHROPIC_TOKEN_PROXY.factor));
    expect(messageOf(rules(tokens - 1).check({ messages: [big], max_tokens: 1 }))).toBe(
      `prompt is too long: ${tokens} tokens > ${tokens - 1} maximum`,
    );
    expect(messageOf(rules(tokens + 10).check({ messages: [big], max_tokens: 11 }))).toBe(
      `input length and \`max_tokens\` exceed context limit: ${tokens} + 11 > ${tokens + 10}, decrease input length or \`max_tokens\` and try again`,
    );
  });

  it("with enforce off, answers a broken request and names the rule it broke", () => {
    const r = createAnthropicRules({ contextWindow: 32_000, counter, enforce: false });
    const v = r.check({ messages: [assistant("hi")] });
    expect(v).toMatchObject({
      ok: true,
      violation: { error: { message: 'messages: first message must use the "user" role' } },
    });
  });
});

describe("Anthropic's prompt cache (the mock's)", () => {
  const long = (seed: string) => `${seed} `.repeat(1_500);
  const request = (...blocks: unknown[]) => ({
    max_tokens: 100,
    system: [text(long("system"), "5m")],
    messages: [user(blocks)],
  });

  it("writes at a breakpoint, reads it back on the next request, and bills the rest as input", () => {
    clock = 0;
    const r = rules();
    const first = r.check(request(text("question one", "5m")));
    expect(first).toMatchObject({ ok: true, cacheReadTokens: 0 });
    if (!first.ok) return;
    expect(first.cacheWriteTokens).toBe(first.promptTokens);
    const second = r.check(request(text("question one"), text("question two", "5m")));
    if (!second.ok) throw new Error(messageOf(second));
    expect(second.cacheReadTokens).toBe(first.promptTokens);
    expect(second.cacheWriteTokens).toBe(second.promptTokens - first.promptTokens);
    expect(second.inputTokens).toBe(0);
  });

  it("reuses a prefix only up to a breakpoint: the same prompt without cache_control reads nothing", () => {
    clock = 0;
    const r = rules();
    r.check(request(text("question one", "5m")));
    const unmarked = r.check({
      max_tokens: 100,
      system: [text(long("system"))],
      messages: [user([text("question one")])],
    });
    expect(unmarked).toMatchObject({ ok: true, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("caches nothing below the minimum cacheable length", () => {
    clock = 0;
    const r = rules();
    const small = { max_tokens: 10, system: [text("short system", "5m")], messages: [user([text("hi", "5m")])] };
    expect(r.check(small)).toMatchObject({ ok: true, cacheWriteTokens: 0 });
    expect(r.check(small)).toMatchObject({ ok: true, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("expires an entry 5 minutes after its last use, 1 hour with ttl 1h", () => {
    const r = rules();
    clock = 0;
    const five = { max_tokens: 10, system: [text(long("five"), "5m")], messages: [user("hi")] };
    const hour = { max_tokens: 10, system: [text(long("hour"), "1h")], messages: [user("hi")] };
    expect(r.check(five)).toMatchObject({ ok: true, cacheReadTokens: 0 });
    const wrote = r.check(hour);
    expect(wrote.ok && wrote.cacheWrite1hTokens).toBeGreaterThan(1_000);
    const readOf = (v: AnthropicVerdict): number => (v.ok ? v.cacheReadTokens : -1);
    clock = 4 * 60_000;
    expect(readOf(r.check(five))).toBeGreaterThan(1_000); // a read renews the entry for 5 minutes
    clock = 8 * 60_000;
    expect(readOf(r.check(five))).toBeGreaterThan(1_000);
    clock = 8 * 60_000 + 5 * 60_000 + 1;
    expect(readOf(r.check(five))).toBe(0);
    expect(readOf(r.check(hour))).toBeGreaterThan(1_000);
    clock = 13 * 60_000 + 60 * 60_000 + 2;
    expect(readOf(r.check(hour))).toBe(0);
  });
});
