/**
 * The mock model's Anthropic and Responses wires, read back through the providers' own SDKs (the clients the host's
 * transports are built on): a stream they parse, errors they raise, usage where they read it.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockModel, type MockScript } from "../host/mock-model.js";

let mock: MockModel | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

// A tool call first, then (once a tool result is in the request) a text answer.
const script: MockScript = (r) =>
  r.messages.some((m) => (m as { role?: unknown }).role === "tool")
    ? { text: `Answer after ${r.wire}.` }
    : { toolCalls: [{ name: "exec", args: { command: "ls" } }] };

const anthropicClient = (m: MockModel) =>
  new Anthropic({ baseURL: m.baseUrl.replace(/\/v1$/, ""), apiKey: "mock-key", maxRetries: 0 });
const system = "You are a careful assistant. ".repeat(200);
const tools = [
  { name: "exec", description: "Run a command", input_schema: { type: "object" as const, properties: {} } },
];

describe("the mock's Anthropic Messages wire", () => {
  it("streams a tool_use the SDK parses, then bills the next request's breakpoint prefix as a cache read", async () => {
    mock = await startMockModel({ script, strict: { contextWindow: 32_000 } });
    const client = anthropicClient(mock);
    const first = await client.messages
      .stream({
        model: "mock-model",
        max_tokens: 1_000,
        system: [{ type: "text", text: system, cache_control: { type: "ephemeral" } }],
        tools,
        messages: [{ role: "user", content: "list the files" }],
      })
      .finalMessage();
    const use = first.content[0];
    expect(first.stop_reason).toBe("tool_use");
    expect(use).toMatchObject({ type: "tool_use", name: "exec", input: { command: "ls" } });
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBe(mock.requests[0]?.usage?.cacheWriteTokens);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1_024);
    const id = use?.type === "tool_use" ? use.id : "";
    const second = await client.messages
      .stream({
        model: "mock-model",
        max_tokens: 1_000,
        system: [{ type: "text", text: system, cache_control: { type: "ephemeral" } }],
        tools,
        messages: [
          { role: "user", content: "list the files" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "a.txt" }] },
        ],
      })
      .finalMessage();
    expect(second.content).toEqual([{ type: "text", text: "Answer after anthropic-messages." }]);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(mock.requests.map((r) => [r.wire, r.turn, r.indexInTurn])).toEqual([
      ["anthropic-messages", 1, 0],
      ["anthropic-messages", 1, 1],
    ]);
  });

  it("answers a prompt over the window with Anthropic's 400 body, which the SDK raises", async () => {
    mock = await startMockModel({ script, strict: { contextWindow: 1_000 } });
    const error = await anthropicClient(mock)
      .messages.create({ model: "mock-model", max_tokens: 100, messages: [{ role: "user", content: system }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as {
      type: string;
      error: { type: string; message: string };
    };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum$/);
    expect(mock.requests[0]?.rejected).toBe(body.error.message);
  });

  it("with thinking on, sends a signed thinking block and refuses it changed on the way back", async () => {
    mock = await startMockModel({ script, strict: { contextWindow: 32_000 } });
    const client = anthropicClient(mock);
    const thinking = { type: "enabled" as const, budget_tokens: 1_024 };
    const first = await client.messages
      .stream({ model: "mock-model", max_tokens: 2_000, thinking, tools, messages: [{ role: "user", content: "go" }] })
      .finalMessage();
    expect(first.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    const [think, use] = first.content;
    const id = use?.type === "tool_use" ? use.id : "";
    const replay = (blocks: Anthropic.ContentBlockParam[]) =>
      client.messages.create({
        model: "mock-model",
        max_tokens: 2_000,
        thinking,
        tools,
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: blocks },
          { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] },
        ],
      });
    const changed = think?.type === "thinking" ? { ...think, thinking: `${think.thinking}!` } : think;
    await expect(replay([changed as Anthropic.ThinkingBlockParam, use as Anthropic.ToolUseBlockParam])).rejects.toThrow(
      /Invalid `signature` in `thinking` block/,
    );
    const ok = await replay(first.content as Anthropic.ContentBlockParam[]);
    expect(ok.content.at(-1)).toMatchObject({ type: "text", text: "Answer after anthropic-messages." });
  });
});

describe("the mock's OpenAI Responses wire", () => {
  it("streams a function call the SDK parses, pairs its output by call_id, and reports cached input", async () => {
    mock = await startMockModel({ script, strict: { contextWindow: 32_000 } });
    const client = new OpenAI({ baseURL: mock.baseUrl, apiKey: "mock-key", maxRetries: 0 });
    const fnTools = [{ type: "function" as const, name: "exec", parameters: {}, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "list the files" }];
    const events: string[] = [];
    let done: OpenAI.Responses.Response | undefined;
    for await (const event of await client.responses.create({
      model: "mock-model",
      instructions: system,
      tools: fnTools,
      input,
      stream: true,
    })) {
      events.push(event.type);
      if (event.type === "response.completed") done = event.response;
    }
    expect(events[0]).toBe("response.created");
    expect(events.at(-1)).toBe("response.completed");
    const fc = done?.output[0];
    expect(fc).toMatchObject({ type: "function_call", name: "exec", arguments: '{"command":"ls"}' });
    const callId = fc?.type === "function_call" ? fc.call_id : "";
    const next = await client.responses.create({
      model: "mock-model",
      instructions: system,
      tools: fnTools,
      input: [
        ...input,
        fc as OpenAI.Responses.ResponseFunctionToolCall,
        { type: "function_call_output", call_id: callId, output: "a.txt" },
      ],
    });
    expect(next.output_text).toBe("Answer after openai-responses.");
    expect(next.usage?.input_tokens).toBe(mock.requests[1]?.usage?.promptTokens);
    expect(next.usage?.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1_024);
    const orphan = await client.responses
      .create({ model: "mock-model", input: [{ type: "function_call_output", call_id: "call_x", output: "?" }] })
      .catch((e: unknown) => e);
    expect(orphan).toBeInstanceOf(OpenAI.BadRequestError);
    expect(mock.requests.map((r) => r.rejected ?? "ok")).toEqual([
      "ok",
      "ok",
      "No tool call found for function call output with call_id call_x.",
    ]);
  });
});
