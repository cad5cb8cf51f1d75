/** The shared-gateway harness, checked in-process (no host needed): routing, registry, log patterns. */
import { afterEach, describe, expect, it } from "vitest";
import { portWasTaken } from "../host/gateway.js";
import { HOST_LINES, type HostVersion } from "../host/host-install.js";
import { HOST_LOG_WORDING, assertWorded, wordingsOn, type HostLogSignal } from "../host/log-wording.js";
import { countHostLogSignals, HOST_LOG_PATTERNS } from "../host/logs.js";
import { startMockModel, type MockModel } from "../host/mock-model.js";
import { allScenarios, plansFor, planKey } from "../host/scenarios/registry.js";
import { agentIdOf, type HostScenario } from "../host/scenarios/scenario.js";
import { scenarioOfText, taggedMessage } from "../host/scenarios/shared-rig.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../host/host-install.js";

let mock: MockModel | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function post(body: unknown): Promise<void> {
  await (await fetch(`${mock?.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(body) })).text();
}

describe("scenario routing on a shared gateway", () => {
  it("tags a message with its scenario and reads the tag back; slash commands go untagged", () => {
    const sent = taggedMessage("fetch-back", "Turn 1: run it.");
    expect(sent).toContain("Turn 1: run it.");
    expect(scenarioOfText(`[Mon 2026-11-23 10:00 UTC] ${sent}`)).toBe("fetch-back");
    expect(taggedMessage("fetch-back", "/reset")).toBe("/reset");
    expect(scenarioOfText("no tag here")).toBeUndefined();
  });

  it("the mock numbers turns per scenario and routes untagged requests to the fallback", async () => {
    let active = "b";
    mock = await startMockModel({ partition: (text) => scenarioOfText(text) ?? active });
    const u = (name: string, n: number) => ({ role: "user", content: taggedMessage(name, `Turn ${n}`) });
    await post({ messages: [u("a", 1)] });
    await post({ messages: [u("b", 1)] });
    await post({ messages: [u("a", 1), { role: "assistant", content: "x" }, u("a", 2)] });
    await post({ messages: [u("a", 1), { role: "assistant", content: "x" }, u("a", 2)] });
    active = "a";
    await post({ messages: [{ role: "system", content: "summarize" }] });
    expect(mock.requests.map((r) => [r.partition, r.turn, r.indexInTurn])).toEqual([
      ["a", 1, 0],
      ["b", 1, 0],
      ["a", 2, 0],
      ["a", 2, 1],
      ["a", 0, 0],
    ]);
  });
});

describe("scenario registry", () => {
  it("every registered scenario has a unique kebab-case name, and each host line has a plan", () => {
    const all = allScenarios();
    expect(new Set(all.map((s) => s.name)).size).toBe(all.length);
    for (const version of HOST_LINES) {
      const plans = plansFor(version, all);
      expect(plans.length, version).toBeGreaterThanOrEqual(1);
      expect(plans.map(planKey).sort()).toEqual([...new Set(plans.map(planKey))].sort());
    }
  });

  it("a scenario with its own model shape runs on an agent of its own on its engine's gateway, last", () => {
    const run = async (): Promise<void> => undefined;
    const plain: HostScenario = { name: "plain", lines: ["2026.9.6"], engines: ["legacy", "context-ledger"], run };
    const wide: HostScenario = {
      name: "wide",
      lines: ["2026.9.6"],
      engines: ["context-ledger"],
      model: { contextWindow: 65_536, maxTokens: 4_096 },
      run,
    };
    const plans = plansFor("2026.9.6", [wide, plain]);
    expect(plans.map((p) => [planKey(p), p.scenarios.map((s) => s.name)])).toEqual([
      ["legacy", ["plain"]],
      ["context-ledger", ["plain", "wide"]],
    ]);
    expect(plans[0]?.agents).toEqual([]);
    expect(plans[1]?.agents).toEqual([{ id: "wide", model: { contextWindow: 65_536, maxTokens: 4_096 } }]);
    expect([agentIdOf(plain), agentIdOf(wide)]).toEqual(["main", "wide"]);
  });

  it("a scenario with its own plugin settings runs on an agent of its own, with them as its section", () => {
    const run = async (): Promise<void> => undefined;
    const plain: HostScenario = { name: "plain", lines: ["2026.9.6"], engines: ["context-ledger"], run };
    const off: HostScenario = {
      name: "off",
      lines: ["2026.9.6"],
      engines: ["context-ledger"],
      ledgerConfig: { maintenance: { enabled: false } },
      run,
    };
    const plans = plansFor("2026.9.6", [off, plain]);
    expect(plans.map((p) => [planKey(p), p.scenarios.map((s) => s.name)])).toEqual([
      ["context-ledger", ["plain", "off"]],
    ]);
    expect(plans[0]?.agents).toEqual([{ id: "off", ledgerConfig: { maintenance: { enabled: false } } }]);
  });

  it("the 2026.9.6 line starts one gateway per engine; its 128k, 48k and 64k sessions run on agents of their own", () => {
    const plans = plansFor("2026.9.6", allScenarios(), { figures: true });
    expect(plans.map(planKey)).toEqual(["legacy", "context-ledger"]);
    expect(plans[1]?.agents.map((a) => [a.id, a.model?.contextWindow, a.ledgerConfig])).toEqual([
      ["long-session-128k", 128_000, undefined],
      ["long-session-48k", 49_152, undefined],
      ["long-session-64k", 65_536, undefined],
      ["host-cut-64k", 65_536, { maintenance: { enabled: false } }],
    ]);
  });

  it("a figure scenario is planned only for a figures run", () => {
    const run = async (): Promise<void> => undefined;
    const plain: HostScenario = { name: "plain", lines: ["2026.9.6"], engines: ["context-ledger"], run };
    const figure: HostScenario = { ...plain, name: "cost", figure: true };
    const names = (figures: boolean): string[] =>
      plansFor("2026.9.6", [plain, figure], { figures }).flatMap((p) => p.scenarios.map((s) => s.name));
    expect(names(false)).toEqual(["plain"]);
    expect(names(true)).toEqual(["plain", "cost"]);
  });

  it("a legacy control outside its legacyLines runs only when every control is asked for", () => {
    const run = async (): Promise<void> => undefined;
    const compared: HostScenario = {
      name: "compared",
      lines: ["2026.4.24", "2026.8.2"],
      engines: ["legacy", "context-ledger"],
      legacyLines: ["2026.4.24"],
      run,
    };
    const keys = (version: HostVersion, allControls: boolean): string[] =>
      plansFor(version, [compared], { allControls }).map(planKey);
    expect(keys("2026.4.24", false)).toEqual(["legacy", "context-ledger"]);
    expect(keys("2026.8.2", false)).toEqual(["context-ledger"]);
    expect(keys("2026.8.2", true)).toEqual(["legacy", "context-ledger"]);
  });

  it("index.ts lists one module per line, sorted, so parallel additions merge", () => {
    const lines = readFileSync(path.join(REPO_ROOT, "test/host/scenarios/index.ts"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("export"));
    expect(
      lines.every((l) => /^export \* as \w+ from "\.\/[a-z0-9-]+\.js";$/.test(l)),
      lines.join("\n"),
    ).toBe(true);
    const files = lines.map((l) => /"\.\/(.*)\.js"/.exec(l)?.[1] ?? "");
    expect(files).toEqual([...files].sort());
  });
});

describe("host log patterns (positive controls, without a host)", () => {
  it("each pattern matches its recorded or rendered host line, and only its own", () => {
    for (const [signal, wordings] of Object.entries(HOST_LOG_WORDING) as [
      HostLogSignal,
      (typeof HOST_LOG_WORDING)[HostLogSignal],
    ][]) {
      for (const w of wordings)
        expect(countHostLogSignals(w.sample)[signal], `${signal}: ${w.sample}`).toBeGreaterThanOrEqual(1);
    }
    // The recorded 2026.4.24 reset loop shows every signal the reset-loop checks count.
    const recorded = readFileSync(path.join(REPO_ROOT, "fixtures/host/2026.4.24-reset-loop-host.log"), "utf8");
    const counts = countHostLogSignals(recorded);
    for (const signal of [
      "precheck",
      "overflowDetected",
      "compactionFailed",
      "sessionRestarted",
      "compactionSucceeded",
    ] as const) {
      expect(counts[signal], signal).toBeGreaterThanOrEqual(1);
    }
    expect(countHostLogSignals("all quiet").engineFailed).toBe(0);
    expect(Object.keys(HOST_LOG_WORDING).sort()).toEqual(Object.keys(HOST_LOG_PATTERNS).sort());
  });

  it("refuses a zero check where the line has no wording for the signal", () => {
    expect(wordingsOn("degradedToLegacy", "2026.4.24")).toEqual([]);
    expect(() => assertWorded("degradedToLegacy", "2026.4.24")).toThrow(/proves nothing/);
    expect(() => assertWorded("degradedToLegacy", "2026.9.6")).not.toThrow();
  });
});

describe("gateway start", () => {
  it("recognises a taken port in the gateway's output", () => {
    expect(portWasTaken("Error: listen EADDRINUSE: address already in use 127.0.0.1:41234")).toBe(true);
    expect(portWasTaken("[gateway] ready (0 plugins, 2.4s)")).toBe(false);
  });
});
