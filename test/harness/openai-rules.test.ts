import { beforeAll, describe, expect, it } from "vitest";
import { createOpenAIRules, type OpenAIRules } from "../host/openai-rules.js";
import { loadTokenCounter, type TokenCounter } from "../host/token-count.js";

// The strict endpoint must refuse what OpenAI refuses: each rule is shown rejecting a bad request.
let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});
const rules = (contextWindow = 32_000): OpenAIRules => createOpenAIRules({ contextWindow, counter });
const call = (id: string) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "exec", arguments: "{}" } }],
});
const tool = (id: string, content = "ok") => ({ role: "tool", tool_call_id: id, content });
const user = (content: string) => ({ role: "user", content });

describe("a strict OpenAI chat-completions endpoint (the mock's rules)", () => {
  it("accepts a paired tool turn and counts its prompt with a real BPE", () => {
    const v = rules().check({ messages: [user("run it"), call("c1"), tool("c1", "done")], max_tokens: 100 });
    expect(v).toMatchObject({ ok: true, cachedTokens: 0 });
    expect(v.promptTokens).toBeGreaterThan(10);
    expect(v.promptTokens).toBeLessThan(100);
  });

  it("refuses a tool result without its call, and a call without its result", () => {
    const orphan = rules().check({ messages: [user("hi"), tool("c9")] });
    expect(orphan).toMatchObject({ ok: false, error: { param: "messages.[].role" } });
    const unanswered = rules().check({ messages: [user("hi"), call("c1"), user("next")] });
    expect(unanswered).toMatchObject({ ok: false });
    expect(!unanswered.ok && unanswered.error.message).toContain("did not have response messages: c1");
    const trailing = rules().check({ messages: [user("hi"), call("c2")] });
    expect(trailing.ok).toBe(false);
  });

  it("refuses a prompt plus completion over the window with context_length_exceeded", () => {
    const big = user("word ".repeat(3_000));
    const fits = rules(8_000).check({ messages: [big], max_completion_tokens: 1_000 });
    expect(fits.ok).toBe(true);
    const over = rules(8_000).check({ messages: [big], max_completion_tokens: 6_000 });
    expect(over).toMatchObject({
      ok: false,
      error: { code: "context_length_exceeded", type: "invalid_request_error" },
    });
    expect(!over.ok && over.error.message).toMatch(
      /maximum context length is 8000 tokens\. However, you requested \d+/,
    );
  });

  it("caches a shared prefix from 1,024 tokens in 128-token steps, and nothing that differs from the start", () => {
    const r = rules(200_000);
    const history = [user("long ".repeat(2_000)), call("c1"), tool("c1", "x ".repeat(500))];
    expect(r.check({ messages: history })).toMatchObject({ ok: true, cachedTokens: 0 });
    const next = r.check({ messages: [...history, user("and then?")] });
    expect(next.ok && next.cachedTokens).toBeGreaterThanOrEqual(2_048);
    expect(next.ok && next.cachedTokens % 128).toBe(0);
    expect(next.ok && next.cachedTokens).toBeLessThan(next.promptTokens);
    const moved = r.check({ messages: [user("short"), ...history.slice(1)] });
    expect(moved).toMatchObject({ ok: true, cachedTokens: 0 });
    const small = rules();
    small.check({ messages: [user("tiny")] });
    expect(small.check({ messages: [user("tiny"), user("more")] })).toMatchObject({ cachedTokens: 0 });
  });
});
