import { beforeAll, describe, expect, it } from "vitest";
import { createResponsesRules, type ResponsesRules, type ResponsesVerdict } from "../host/responses-rules.js";
import { loadTokenCounter, type TokenCounter } from "../host/token-count.js";

// The strict Responses endpoint must refuse what OpenAI refuses: each rule is shown rejecting a bad request.
let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});
const rules = (contextWindow = 32_000): ResponsesRules => createResponsesRules({ contextWindow, counter });
const user = (text: string) => ({ role: "user", content: [{ type: "input_text", text }] });
const call = (id: string) => ({ type: "function_call", call_id: id, name: "exec", arguments: '{"command":"ls"}' });
const output = (id: string, text = "done") => ({ type: "function_call_output", call_id: id, output: text });
const messageOf = (v: ResponsesVerdict): string => (v.ok ? "ok" : v.error.message);

describe("a strict OpenAI Responses endpoint (the mock's rules)", () => {
  it("accepts a paired call and counts instructions, tools and items with o200k", () => {
    const tools = [{ type: "function", name: "exec", parameters: {} }];
    const v = rules().check({
      instructions: "Be brief.",
      tools,
      input: [user("run it"), call("call_1"), output("call_1")],
      max_output_tokens: 100,
    });
    expect(v).toMatchObject({ ok: true, cachedTokens: 0 });
    const expected =
      counter("Be brief.") +
      4 +
      counter(JSON.stringify(tools)) +
      counter("run it") +
      4 +
      counter('exec{"command":"ls"}') +
      4 +
      counter("done") +
      4;
    expect(v.promptTokens).toBe(expected);
  });

  it("refuses an output whose call_id no earlier function_call has", () => {
    expect(messageOf(rules().check({ input: [user("hi"), output("call_9")] }))).toBe(
      "No tool call found for function call output with call_id call_9.",
    );
    expect(messageOf(rules().check({ input: [user("hi"), output("call_1"), call("call_1")] }))).toBe(
      "No tool call found for function call output with call_id call_1.",
    );
  });

  it("refuses a function_call left without its output", () => {
    expect(messageOf(rules().check({ input: [user("hi"), call("call_2"), user("next")] }))).toBe(
      "No tool output found for function call call_2.",
    );
  });

  it("refuses input plus max_output_tokens over the window with context_length_exceeded", () => {
    const big = user("word ".repeat(3_000));
    const fits = rules(8_000).check({ input: [big], max_output_tokens: 1_000 });
    expect(fits.ok).toBe(true);
    const over = rules(fits.promptTokens + 10).check({ input: [big], max_output_tokens: 11 });
    expect(over).toMatchObject({ ok: false, error: { code: "context_length_exceeded", param: "input" } });
  });

  it("reports a shared prefix from 1,024 tokens on as cached, in 128-token steps", () => {
    const r = rules();
    const long = user("alpha beta ".repeat(800));
    const first = r.check({ input: [long], max_output_tokens: 10 });
    const second = r.check({ input: [long, call("c1"), output("c1")], max_output_tokens: 10 });
    expect(first).toMatchObject({ ok: true, cachedTokens: 0 });
    expect(second.ok && second.cachedTokens).toBe(Math.floor(first.promptTokens / 128) * 128);
    const short = rules();
    short.check({ input: [user("hi")] });
    expect(short.check({ input: [user("hi")] })).toMatchObject({ ok: true, cachedTokens: 0 });
  });
});
