/** The harness's mock model and helpers, checked in-process (no host needed). */
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockModel } from "../host/mock-model.js";
import {
  execTurnScript,
  hasToolResultInCurrentTurn,
  printedChars,
  printCharsCommand,
  SILENT_REPLY,
  toolResultsInCurrentTurn,
} from "../host/mock-scripts.js";
import { INTERNAL_CONTEXT_MARKER } from "../host/mock-wire.js";
import { extractJson } from "../host/openclaw-cli.js";
import { countMessageTokens, loadTokenCounter, splitForCounting } from "../host/token-count.js";
import { execFileSync } from "node:child_process";

let mock: MockModel | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const tools = [{ type: "function", function: { name: "exec", parameters: {} } }];

async function post(body: unknown): Promise<string> {
  const res = await fetch(`${mock?.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(body) });
  return res.text();
}

describe("mock model", () => {
  it("strict: answers OpenAI's 400 for a request over the window or with an orphan tool message, and real usage", async () => {
    mock = await startMockModel({ strict: { contextWindow: 4_000 } });
    const long = { role: "user", content: "alpha beta ".repeat(800) };
    const over = await fetch(`${mock.baseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [long], max_tokens: 3_000 }),
    });
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("context_length_exceeded");
    const orphan = await fetch(`${mock.baseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        messages: [
          { role: "user", content: "hi" },
          { role: "tool", tool_call_id: "x", content: "" },
        ],
      }),
    });
    expect(orphan.status).toBe(400);
    const ok = JSON.parse(await post({ messages: [long], max_tokens: 500 })) as {
      usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
    };
    const again = JSON.parse(
      await post({ messages: [long, { role: "user", content: "and?" }], max_tokens: 500 }),
    ) as typeof ok;
    expect(ok.usage.prompt_tokens).toBe(mock.requests[2]?.usage?.promptTokens);
    expect(ok.usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect(again.usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1_024);
    expect(mock.requests.map((r) => r.rejected ?? "ok")).toEqual([
      "context_length_exceeded",
      expect.stringContaining("preceeding message with 'tool_calls'"),
      "ok",
      "ok",
    ]);
  });

  it("strict: judges a model of `windows` at its own window, with a prefix cache of its own", async () => {
    mock = await startMockModel({ strict: { contextWindow: 4_000, windows: { "mock-model-wide": 16_000 } } });
    const long = { role: "user", content: "alpha beta ".repeat(800) };
    const ask = async (model: string, messages: unknown[]) => {
      const res = await fetch(`${mock?.baseUrl}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model, messages, max_tokens: 3_000 }),
      });
      return { status: res.status, body: (await res.json()) as { model?: string } };
    };
    expect((await ask("mock-model", [long])).status).toBe(400);
    const wide = await ask("mock-model-wide", [long]);
    expect(wide.status).toBe(200);
    expect(wide.body.model).toBe("mock-model-wide");
    await ask("mock-model-wide", [long, { role: "user", content: "and?" }]);
    // The default model's endpoint never saw the prefix: nothing cached there.
    await ask("mock-model", [{ role: "user", content: "alpha beta ".repeat(200) }]);
    expect(mock.requests.map((r) => [r.rejected ?? "ok", (r.usage?.cachedTokens ?? 0) > 0])).toEqual([
      ["context_length_exceeded", false],
      ["ok", false],
      ["ok", true],
      ["ok", false],
    ]);
  });

  it("streams a tool call, then answers once the tool result follows, counting turns by user message", async () => {
    mock = await startMockModel({ script: execTurnScript({ outputChars: 10, answerChars: 50 }) });
    const user = { role: "user", content: "Turn 1: go" };
    const first = await post({ stream: true, tools, messages: [user] });
    expect(first).toContain('"finish_reason":"tool_calls"');
    expect(first).toContain('"name":"exec"');
    expect(first.trim().endsWith("data: [DONE]")).toBe(true);

    const call = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "exec", arguments: "{}" } }],
    };
    const internal = { role: "user", content: `${INTERNAL_CONTEXT_MARKER}\nruntime note` };
    const second = JSON.parse(
      await post({ tools, messages: [user, call, { role: "tool", tool_call_id: "c1", content: "x" }, internal] }),
    );
    expect(second.choices[0].finish_reason).toBe("stop");
    expect(second.choices[0].message.content).toHaveLength(50);

    await post({
      tools,
      messages: [user, { role: "assistant", content: "ok" }, { role: "user", content: "Turn 2: again" }],
    });
    expect(mock.requests.map((r) => [r.turn, r.indexInTurn])).toEqual([
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
    expect(mock.requests[1]?.bytes).toBeGreaterThan(0);
  });

  it("never calls a tool the request does not offer: a memory-flush run (read, write) gets the silent reply", async () => {
    mock = await startMockModel({ script: execTurnScript({ outputChars: 10, answerChars: 50 }) });
    const flushTools = ["read", "write"].map((name) => ({ type: "function", function: { name, parameters: {} } }));
    const reply = JSON.parse(
      await post({ tools: flushTools, messages: [{ role: "user", content: "Pre-compaction memory flush." }] }),
    );
    expect(reply.choices[0].finish_reason).toBe("stop");
    expect(reply.choices[0].message.content).toBe(SILENT_REPLY);
    const offered = await post({
      stream: true,
      tools: [...flushTools, ...tools],
      messages: [{ role: "user", content: "Turn 2: go" }],
    });
    expect(offered).toContain('"name":"exec"');
  });

  it("answers plain text after the per-turn cap, so a tool loop cannot run away", async () => {
    mock = await startMockModel({ script: () => ({ toolCalls: [{ name: "exec", args: {} }] }), maxRequestsPerTurn: 2 });
    const body = { tools, messages: [{ role: "user", content: "Turn 1" }] };
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(JSON.parse(await post(body)).choices[0].finish_reason);
    expect(replies).toEqual(["tool_calls", "tool_calls", "stop"]);
    expect(mock.requests.map((r) => r.capped)).toEqual([false, false, true]);
  });
});

describe("harness helpers", () => {
  it("toolResultsInCurrentTurn: the tool results after the newest genuine user message, oldest first", () => {
    const messages = [
      { role: "user", content: "turn 1" },
      { role: "tool", tool_call_id: "a", content: "old result" },
      { role: "user", content: "turn 2" },
      { role: "tool", tool_call_id: "b", content: "first" },
      { role: "tool", tool_call_id: "c", content: [{ type: "text", text: "second" }] },
    ];
    expect(toolResultsInCurrentTurn(messages)).toEqual(["first", JSON.stringify([{ type: "text", text: "second" }])]);
    expect(hasToolResultInCurrentTurn(messages)).toBe(true);
    expect(hasToolResultInCurrentTurn([...messages, { role: "user", content: "turn 3" }])).toBe(false);
  });

  it("printCharsCommand prints exactly printedChars", () => {
    const command = printCharsCommand(5_000);
    const out = execFileSync("sh", ["-c", command], { encoding: "utf8" });
    expect(out).toHaveLength(5_000);
    expect(out).toBe(printedChars(5_000));
  });

  it("extractJson finds the JSON block among log lines", () => {
    expect(extractJson('[plugins] note\n{\n  "ok": true,\n  "n": [1]\n}\n[openclaw] bye')).toEqual({
      ok: true,
      n: [1],
    });
    expect(extractJson("no json here")).toBeUndefined();
  });

  it("counts a 50,000-char run of one character quickly and never below the unsplit count", async () => {
    const counter = await loadTokenCounter();
    expect(splitForCounting("x".repeat(200)).every((p) => p.length <= 64)).toBe(true);
    expect(counter("x".repeat(50_000))).toBeGreaterThanOrEqual(50_000 / 64);
    expect(countMessageTokens([{ role: "user", content: "hello world" }], counter)).toBe(2 + 4);
  });
});
