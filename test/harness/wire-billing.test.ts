import { describe, expect, it } from "vitest";
import type { MockRequest } from "../host/mock-model.js";
import { billRequests, billRow, wireInputCost } from "../host/wire-billing.js";
import { wireAgentsConfig } from "../host/wire-agents.js";
import { prefixBreaks } from "../host/scenarios/wire-session.js";

const request = (usage: MockRequest["usage"], rejected?: string): MockRequest => ({
  index: 0,
  turn: 1,
  indexInTurn: 0,
  wire: "anthropic-messages",
  body: {},
  messages: [],
  lastMessage: undefined,
  userText: "",
  toolNames: [],
  bytes: 0,
  messageBytes: 0,
  capped: false,
  partition: "",
  ...(usage ? { usage } : {}),
  ...(rejected ? { rejected } : {}),
});

describe("a wire's bill", () => {
  it("prices Anthropic's cache reads at 0.1x, 5-minute writes at 1.25x and 1-hour writes at 2x of $3 input", () => {
    const usage = {
      promptTokens: 4_000_000,
      cachedTokens: 1_000_000,
      cacheWriteTokens: 2_000_000,
      cacheWrite1hTokens: 1_000_000,
    };
    expect(wireInputCost("anthropic-messages", usage)).toBeCloseTo(3 + 0.3 + 3.75 + 6, 10);
    expect(
      wireInputCost("openai-responses", { promptTokens: 2_000_000, cachedTokens: 1_000_000, cacheWriteTokens: 0 }),
    ).toBeCloseTo(1.25 + 0.125, 10);
  });

  it("bills answered requests only and lists the refused ones", () => {
    const bill = billRequests("anthropic-messages", [
      request({ promptTokens: 10_000, cachedTokens: 0, cacheWriteTokens: 10_000 }),
      request({ promptTokens: 12_000, cachedTokens: 10_000, cacheWriteTokens: 2_000 }),
      request(
        { promptTokens: 50_000, cachedTokens: 0, cacheWriteTokens: 0 },
        "prompt is too long: 50000 tokens > 32000 maximum",
      ),
    ]);
    expect(bill).toMatchObject({
      requests: 3,
      rejected: ["turn 1: prompt is too long: 50000 tokens > 32000 maximum"],
      promptTokens: 22_000,
      cachedTokens: 10_000,
      cacheWriteTokens: 12_000,
      cachedShare: 0.455,
      inputCostUsd: 0.048,
    });
    expect(billRow("legacy", "5/5", bill)).toBe(
      "| legacy | anthropic-messages | 5/5 | 3 | 1 | 22000 | 45.5% | 12000 | $0.0480 |",
    );
  });
});

describe("the wire agents of a shared gateway", () => {
  it("give each wire a provider at the mock (Anthropic's at the server root) and an agent on it", () => {
    const config = wireAgentsConfig(
      { baseUrl: "http://127.0.0.1:5000/v1", modelId: "m" },
      { contextWindow: 32_000, maxTokens: 4_096 },
    );
    expect(
      Object.entries(config.providers).map(([id, p]) => [
        id,
        (p as { api: string }).api,
        (p as { baseUrl: string }).baseUrl,
      ]),
    ).toEqual([
      ["mock-anthropic", "anthropic-messages", "http://127.0.0.1:5000"],
      ["mock-responses", "openai-responses", "http://127.0.0.1:5000/v1"],
    ]);
    expect(config.agents).toEqual([
      { id: "wire-anthropic", model: "mock-anthropic/m" },
      { id: "wire-responses", model: "mock-responses/m" },
    ]);
  });
});

describe("prefix breaks between a wire's requests", () => {
  const at = (messages: unknown[]): MockRequest => ({ ...request(undefined), messages });
  it("name the first message that differs from the request before, and nothing for a pure extension", () => {
    const sys = { role: "system", content: "s" };
    const u1 = { role: "user", content: "one" };
    const call = (id: string) => ({ role: "assistant", content: null, tool_calls: [{ id }] });
    const breaks = prefixBreaks([at([sys, u1]), at([sys, u1, call("call_a-1")]), at([sys, u1, call("calla1"), u1])]);
    expect(breaks).toEqual([
      {
        request: 2,
        turn: 1,
        atMessage: 2,
        was: JSON.stringify(call("call_a-1")),
        now: JSON.stringify(call("calla1")),
      },
    ]);
  });
});
