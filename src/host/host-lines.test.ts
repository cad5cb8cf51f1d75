import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectHost, packageVersionNear, runtimeVersionOf } from "./detect-host.js";
import { hostChars, hostMessageBudget, hostMessageChars } from "./host-estimate.js";
import { HOST_LINE_IDS, HOST_LINES, hostLineOf, hostPromptLimit, type HostLine } from "./host-lines.js";
import { normalizeFactoryContext } from "./normalize.js";
import { modelLimitsFromConfig } from "./host-budget.js";
import { useTempDir } from "../../test/support/temp-dir.js";

const tmp = useTempDir("cl-detect-");

describe("host lines", () => {
  it("only 2026.6 and 2026.7 read alike in every field but their name; 2026.5 captures at turn end", () => {
    const withoutName = (line: HostLine) => JSON.stringify({ ...HOST_LINES[line], line: undefined });
    const alike = HOST_LINE_IDS.flatMap((a, i) =>
      HOST_LINE_IDS.slice(i + 1)
        .filter((b) => withoutName(a) === withoutName(b))
        .map((b) => `${a}=${b}`),
    );
    expect(alike).toEqual(["2026.6=2026.7"]);
    expect(HOST_LINE_IDS.filter((l) => !HOST_LINES[l].capturesAfterToolCall)).toEqual(["2026.4", "2026.5"]);
  });

  it("maps every released version to its line, later ones to the newest row", () => {
    expect(["2026.4.24", "2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"].map(hostLineOf)).toEqual([
      "2026.4",
      "2026.5",
      "2026.6",
      "2026.7",
      "2026.8",
      "2026.9",
    ]);
    expect(hostLineOf("2027.1.3")).toBe("2026.9");
    expect(hostLineOf("2026.7.1-beta.2")).toBe("2026.7");
    expect(hostLineOf("not a version")).toBeUndefined();
    expect(hostLineOf(undefined)).toBeUndefined();
  });

  it("detects the line from api.runtime.version, else the openclaw package above argv[1], else the factory shape", () => {
    expect(runtimeVersionOf({ runtime: { version: "2026.6.11" } })).toBe("2026.6.11");
    expect(runtimeVersionOf({ runtime: { version: "unknown" } })).toBeUndefined();
    expect(
      runtimeVersionOf({
        runtime: {
          get version() {
            throw new Error("boom");
          },
        },
      }),
    ).toBeUndefined();
    expect(detectHost("2026.5.28", {})).toMatchObject({ line: "2026.5", source: "runtime" });

    const root = tmp();
    mkdirSync(path.join(root, "openclaw", "dist"), { recursive: true });
    writeFileSync(
      path.join(root, "openclaw", "package.json"),
      JSON.stringify({ name: "openclaw", version: "2026.7.35" }),
    );
    const entry = path.join(root, "openclaw", "dist", "entry.js");
    expect(packageVersionNear(entry)).toBe("2026.7.35");
    expect(detectHost(undefined, {}, entry)).toMatchObject({ line: "2026.7", version: "2026.7.35", source: "package" });
    expect(detectHost(undefined, undefined, path.join(root, "x.js"))).toMatchObject({
      line: "2026.4",
      source: "factory-shape",
    });
    expect(detectHost(undefined, {}, path.join(root, "x.js"))).toMatchObject({
      line: "2026.9",
      source: "factory-shape",
    });
  });

  it("5.28-7.x are not classed as 2026.9 any more (they pass the whole window)", () => {
    const ctx = normalizeFactoryContext({ config: {}, agentDir: "/s/agents/ops/agent" }, "2026.6.11");
    expect(ctx.generation).toBe("2026.6");
    expect(ctx.semantics.tokenBudget).toBe("whole-window");
    expect(ctx.semantics.preflight?.skipReasonText).toBe("nothing to compact");
    expect(ctx.agentId).toBe("ops");
    expect(HOST_LINES["2026.9"].tokenBudget).toBe("prompt-budget");
  });

  it("reads the model's limits from the host config by provider/id or bare id", () => {
    const config = {
      models: { providers: { mock: { models: [{ id: "m1", contextWindow: 32_000, maxTokens: 4_096 }] } } },
    };
    expect(modelLimitsFromConfig(config, "mock/m1")).toEqual({ contextWindow: 32_000, maxTokens: 4_096 });
    expect(modelLimitsFromConfig(config, "m1")).toEqual({ contextWindow: 32_000, maxTokens: 4_096 });
    expect(modelLimitsFromConfig(config, "other")).toEqual({ contextWindow: undefined, maxTokens: undefined });
    expect(modelLimitsFromConfig(null, "m1")).toEqual({ contextWindow: undefined, maxTokens: undefined });
  });
});

describe("the host's currency", () => {
  it("counts chars as the transport does: non-Latin ×4, tool calls as JSON", () => {
    expect(hostChars("abc")).toBe(3);
    expect(hostChars("日本")).toBe(8);
    expect(hostChars("é")).toBe(1);
    const call = { type: "toolCall", id: "call_1", name: "exec", arguments: { command: "ls" } };
    expect(hostMessageChars({ role: "assistant", content: [{ type: "text", text: "hi" }, call] })).toBe(
      2 + JSON.stringify(call).length,
    );
    expect(hostMessageChars({ role: "user", content: "hello" })).toBe(5);
  });

  it("the output clamp binds on 2026.9 with a large output allowance (window − maxTokens − 1, /1.25, less overhead and live prompt)", () => {
    const b = hostMessageBudget(HOST_LINES["2026.9"], {
      contextWindow: 128_000,
      maxOutputTokens: 32_768,
      systemChars: 20_000,
      toolsChars: 20_000,
      livePromptChars: 400,
    });
    expect(b.rule).toBe("output-clamp");
    expect(b.messageUnits).toBe(Math.floor((128_000 - 32_768 - 1) / 1.25 - 40_400 / 4));
  });

  it("the memory flush's threshold binds on 2026.9 at 32k: window − min(20,000, window/4) − 4,000; a reply beyond the soft 4,000 moves it", () => {
    const b = hostMessageBudget(HOST_LINES["2026.9"], {
      contextWindow: 32_000,
      maxOutputTokens: 4_096,
      systemChars: 20_000,
      toolsChars: 20_000,
      livePromptChars: 400,
      replyTokens: 500,
    });
    expect(b.rule).toBe("host-threshold");
    expect(b.messageUnits).toBe(Math.floor((20_000 - 1) / 1.1 - 40_400 / 4));
    const rule = HOST_LINES["2026.9"].hostThreshold!;
    expect(hostPromptLimit(rule, 200_000)).toBe(176_000 - 1);
    expect(hostPromptLimit(rule, 32_000, undefined, 6_000)).toBe(24_000 - 1 - 6_000);
    expect(hostPromptLimit(rule, 32_000, { enabled: false, softThresholdTokens: undefined }, 500)).toBe(
      24_000 - 1 - 500,
    );
    expect(HOST_LINES["2026.7"].hostThreshold).toBeUndefined();
  });

  it("the precheck binds on 2026.5 when it is tighter than the clamp", () => {
    const b = hostMessageBudget(HOST_LINES["2026.5"], {
      contextWindow: 32_000,
      maxOutputTokens: 4_096,
      systemChars: 0,
      toolsChars: 0,
      livePromptChars: 0,
    });
    expect(b.rule).toBe("precheck");
    expect(b.messageUnits).toBe(Math.floor((32_000 - 16_384) / 1.2 - 8));
  });

  it("no estimator on 2026.4's clamp-less transport beyond its precheck; never negative", () => {
    const b = hostMessageBudget(HOST_LINES["2026.9"], {
      contextWindow: 8_000,
      maxOutputTokens: 4_096,
      systemChars: 40_000,
      toolsChars: 40_000,
      livePromptChars: 0,
    });
    expect(b.messageUnits).toBe(0);
    expect(HOST_LINES["2026.4"].outputClamp).toBeUndefined();
  });
});
