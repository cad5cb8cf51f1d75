import { describe, expect, it } from "vitest";
import { parseConfig, resolveAgentSettings } from "../config/parse-config.js";
import { HOST_LINES } from "../host/host-lines.js";
import { REPLY_PRIMING_TOKENS } from "../tokens/count-projection.js";
import { HOST_MIN_VIABLE_SHARE, resolveAssemblyBudget } from "./budget.js";

const config = { models: { providers: { mock: { models: [{ id: "m", contextWindow: 32_000, maxTokens: 4_096 }] } } } };
const settings = resolveAgentSettings(parseConfig({}), "main");
/** A 2026.6 assembly (the whole window as tokenBudget) at 32k with maxTokens 4,096, and the host's overhead. */
const on2026dot6 = (overhead?: { systemChars: number; toolsChars: number }) =>
  resolveAssemblyBudget(settings, {
    generation: "2026.6",
    semantics: HOST_LINES["2026.6"],
    tokenBudget: 32_000,
    model: "mock/m",
    hostConfig: config,
    ...(overhead ? { overhead } : {}),
    messages: [],
  });

describe("resolveAssemblyBudget", () => {
  it("derives the message budget from the prompt budget: less margin, summary reserve and reply priming", () => {
    const b = resolveAssemblyBudget(settings, {
      generation: "2026.9",
      semantics: HOST_LINES["2026.9"],
      tokenBudget: 20_000,
      messages: [],
    });
    const margin = Math.ceil(20_000 * settings.budget.safetyMarginRatio) + settings.budget.safetyMarginTokens;
    const reserve = Math.ceil(settings.summary.maxInjectedChars / 3) + 16;
    expect(b.budget.tokens).toBe(20_000);
    expect(b.margin).toBe(margin);
    expect(b.messageBudget).toBe(20_000 - margin - reserve - REPLY_PRIMING_TOKENS);
    // What the summary may use once messages are kept: the reserve is not held back from it.
    expect(b.summaryRoom(10_000)).toBe(20_000 - margin - 10_000 - REPLY_PRIMING_TOKENS);
  });

  it("on a whole-window line caps the exact budget at the window less the output allowance", () => {
    const b = on2026dot6();
    expect(b.budget.tokens).toBe(32_000 - 4_096);
    expect(b.hostPlan.host.rule).toBe("output-clamp");
    expect(b.hostUnits).toBe(b.rawHostUnits);
    expect(b.rawHostUnits).toBeGreaterThan(HOST_MIN_VIABLE_SHARE * b.messageBudget);
  });

  it("plans by exact count alone when the host's overhead leaves no viable room for messages", () => {
    const b = on2026dot6({ systemChars: 20_000, toolsChars: 85_000 });
    expect(b.rawHostUnits).toBeDefined();
    expect(b.rawHostUnits as number).toBeLessThan(HOST_MIN_VIABLE_SHARE * b.messageBudget);
    expect(b.hostUnits).toBeUndefined();
  });
});
