import { describe, expect, it } from "vitest";
import { parseConfig, resolveAgentSettings } from "../config/parse-config.js";
import { HOST_LINES } from "../host/host-lines.js";
import { REPLY_PRIMING_TOKENS } from "../tokens/count-projection.js";
import {
  dualCurrencyCharge,
  hostEstimateOf,
  HOST_MIN_VIABLE_SHARE,
  resolveAssemblyBudget,
  resolveHostPlan,
} from "./budget.js";

const config = { models: { providers: { mock: { models: [{ id: "m", contextWindow: 32_000, maxTokens: 4_096 }] } } } };
const settings = resolveAgentSettings(parseConfig({}), "main");
/** A 2026.6 assembly (the whole window as tokenBudget) at 32k with maxTokens 4,096, and the host's overhead. */
const on2026dot6 = (overhead?: { systemChars: number; toolsChars: number }) =>
  resolveAssemblyBudget(settings, {
    semantics: HOST_LINES["2026.6"],
    tokenBudget: 32_000,
    model: "mock/m",
    hostConfig: config,
    ...(overhead ? { overhead } : {}),
    messages: [],
    replyPrimingTokens: REPLY_PRIMING_TOKENS,
  });

describe("resolveAssemblyBudget", () => {
  it("derives the message budget from the prompt budget: less margin, summary reserve and reply priming", () => {
    const b = resolveAssemblyBudget(settings, {
      semantics: HOST_LINES["2026.9"],
      tokenBudget: 20_000,
      messages: [],
      replyPrimingTokens: REPLY_PRIMING_TOKENS,
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

describe("resolveHostPlan", () => {
  it("on a whole-window line (2026.6) reserves the output allowance off the exact budget and applies the host's estimators", () => {
    const plan = resolveHostPlan({
      semantics: HOST_LINES["2026.6"],
      config,
      model: "mock/m",
      tokenBudget: 32_000,
      prompt: "Turn 2: go",
      runtimeSettings: undefined,
      overhead: { systemChars: 20_000, toolsChars: 50_000 },
      summaryChars: 4_000,
    });
    expect(plan.exactCeiling).toBe(32_000 - 4_096);
    expect(plan.host.rule).toBe("output-clamp");
    expect(plan.host.messageUnits).toBe(Math.floor((32_000 - 4_096 - 1) / 1.25 - (74_000 + 10) / 4));
    expect(plan.factor).toBe(1.25);
  });

  it("on 2026.9 takes maxOutputTokens from runtimeSettings and the window from the config (tokenBudget is already a prompt budget)", () => {
    const plan = resolveHostPlan({
      semantics: HOST_LINES["2026.9"],
      config: {},
      model: "x",
      tokenBudget: 21_947,
      prompt: undefined,
      runtimeSettings: { limits: { maxOutputTokens: 2_000 } },
      overhead: undefined,
      summaryChars: 0,
    });
    expect(plan.exactCeiling).toBeUndefined();
    expect(plan.contextWindow).toBeUndefined();
    expect(plan.host.rule).toBe("none");
  });

  it("on 2026.9 keeps room for the current turn's tool result the host appends after assemble", () => {
    const base = {
      config,
      model: "m",
      tokenBudget: 21_000,
      prompt: "",
      runtimeSettings: undefined,
      overhead: { systemChars: 20_000, toolsChars: 9_000 },
      summaryChars: 0,
    };
    const on9 = resolveHostPlan({ ...base, semantics: HOST_LINES["2026.9"] });
    const on6 = resolveHostPlan({ ...base, semantics: HOST_LINES["2026.6"] });
    // At 32k the memory flush's threshold (window − 8,000 − 4,000) binds before the transport's clamp.
    expect(on9.host).toEqual({
      rule: "host-threshold",
      messageUnits: Math.floor((20_000 - 1) / 1.1 - (29_000 + 16_000 + 1_500) / 4),
    });
    // 2026.6 passes the current turn through assemble (no reserve); its precheck binds there.
    expect(on6.host).toEqual({ rule: "precheck", messageUnits: Math.floor((32_000 - 16_384) / 1.2 - 8 - 20_000 / 4) });
  });

  it("on 2026.9 stays below the host's memory-flush threshold, and with the session's recent reply below its preflight, as the operator set them", () => {
    const base = {
      semantics: HOST_LINES["2026.9"],
      model: "m",
      tokenBudget: 21_000,
      prompt: "",
      runtimeSettings: undefined,
      overhead: { systemChars: 8_000, toolsChars: 0 },
      summaryChars: 0,
    };
    const appended = (8_000 + 16_000 + 1_500) / 4;
    const reply = (chars: number) => [
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "text", text: "a".repeat(chars) }] },
      { role: "user", content: "q2" },
    ];
    // A 2,000-char reply fits in the 4,000 between the flush (20,000) and the preflight (24,000); a 20,000-char one
    // does not.
    expect(resolveHostPlan({ ...base, config, history: reply(2_000) }).host).toEqual({
      rule: "host-threshold",
      messageUnits: Math.floor((20_000 - 1) / 1.1 - appended),
    });
    expect(resolveHostPlan({ ...base, config, history: reply(20_000) }).host.messageUnits).toBe(
      Math.floor((24_000 - 1 - 4_096) / 1.1 - appended),
    );
    const withFlush = (memoryFlush: Record<string, unknown>) => ({
      ...config,
      agents: { defaults: { compaction: { memoryFlush } } },
    });
    // Flush off (only the preflight's 24,000 left) or a 1,000 soft threshold (23,000): the thresholds move up, and
    // still bind before the transport's clamp (27,903 / 1.25 units) once counted in provider tokens (× 1.1).
    expect(resolveHostPlan({ ...base, config: withFlush({ enabled: false }) }).host).toEqual({
      rule: "host-threshold",
      messageUnits: Math.floor((24_000 - 1) / 1.1 - appended),
    });
    expect(resolveHostPlan({ ...base, config: withFlush({ softThresholdTokens: 1_000 }) }).host).toEqual({
      rule: "host-threshold",
      messageUnits: Math.floor((23_000 - 1) / 1.1 - appended),
    });
    // A large window with a large output allowance: the transport's clamp binds again.
    const wide = {
      models: { providers: { mock: { models: [{ id: "m", contextWindow: 128_000, maxTokens: 32_768 }] } } },
    };
    const plan = resolveHostPlan({ ...base, config: wide });
    expect(plan.host).toEqual({
      rule: "output-clamp",
      messageUnits: Math.floor((128_000 - 32_768 - 1) / 1.25 - appended),
    });
    expect(plan.factor).toBe(1.25);
  });

  it("hostEstimateOf counts what the host will for the engine's part: the view and its addition, /4, × the binding factor", () => {
    const plan = resolveHostPlan({
      semantics: HOST_LINES["2026.9"],
      config,
      model: "m",
      tokenBudget: 20_000,
      prompt: "p".repeat(40),
      runtimeSettings: undefined,
      overhead: { systemChars: 400, toolsChars: 0 },
      summaryChars: 0,
    });
    expect(hostEstimateOf(plan, [{ role: "user", content: "x".repeat(160) }], 40)).toBe(
      Math.ceil(((160 + 40) / 4) * 1.25),
    );
  });
});

describe("dualCurrencyCharge", () => {
  it("charges each message the larger of its exact cost and its scaled host cost, so both sums fit", () => {
    const exact = [100, 10, 50];
    const host = [20, 80, 50];
    const charge = dualCurrencyCharge(200, 100);
    expect([0, 1, 2].map((i) => charge(exact[i] ?? 0, () => host[i] ?? 0))).toEqual([100, 160, 100]);
    expect(dualCurrencyCharge(200, undefined)(100, () => 1e9)).toBe(100);
    expect(dualCurrencyCharge(200, 0)(1, () => 0)).toBe(201);
  });
});
