import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import plugin from "../../src/plugin.js";
import type { LedgerTool, LedgerToolContext } from "../../src/retrieval/tools.js";
import { createLedgerTools } from "../../src/retrieval/tools.js";
import { createTestEngine } from "../support/engine-harness.js";

/** Registers the plugin against a minimal host API and returns its tool factory. */
async function registerPlugin(pluginConfig: Record<string, unknown>) {
  let factory: ((ctx?: LedgerToolContext) => LedgerTool[]) | undefined;
  const api = {
    pluginConfig,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    registerContextEngine() {},
    registerTool(f: (ctx?: LedgerToolContext) => LedgerTool[]) {
      factory = f;
    },
  };
  plugin.register(api as never);
  if (!factory) throw new Error("the plugin registered no tool factory");
  return factory;
}

describe("tool scope", () => {
  it("a tool context without agentId does not read main's store; the session key names the agent", async () => {
    const t = await createTestEngine();
    const { handle } = await t.services.store("main").stash("main's private output", { kind: "tool-output" });
    const [fetchNoAgent] = createLedgerTools({ openStore: (id) => t.services.store(id), readableAgents: () => [] }, {});
    const r = await fetchNoAgent!.execute("call_aB_1-x", { handle });
    expect(r.content[0]!.text).not.toContain("main's private output");
    expect(r.details.error).toMatchObject({ code: "input_invalid" });
    expect(r.content[0]!.text).toMatch(/Expected the tool context to name the calling agent/);

    const [fetchOps] = createLedgerTools(
      { openStore: (id) => t.services.store(id), readableAgents: () => [] },
      { sessionKey: "agent:ops:s1" },
    );
    const denied = await fetchOps!.execute("call_aB_2-x", { handle });
    expect(denied.details.error).toMatchObject({ code: "artifact_not_found" });
    const [fetchMain] = createLedgerTools(
      { openStore: (id) => t.services.store(id), readableAgents: () => [] },
      { sessionKey: "agent:main:s1" },
    );
    expect((await fetchMain!.execute("call_aB_3-x", { handle })).content[0]!.text).toContain("main's private output");
    await t.cleanup();
  });

  it('readableAgents: ["*"] works through the plugin (it found no other agent before)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-scope-"));
    const factory = await registerPlugin({ stateDir: dir, agents: { ops: { retrieval: { readableAgents: ["*"] } } } });
    const [fetchMain] = factory({ agentId: "main" });
    const [fetchOps] = factory({ agentId: "ops" });
    const store = (await import("../../src/artifacts/store.js")).createArtifactStore({
      root: path.join(dir, "agents", "main", "artifacts"),
    });
    const { handle } = await store.stash("shared build log", { kind: "tool-output" });
    expect((await fetchMain!.execute("call_aB_4-x", { handle })).content[0]!.text).toContain("shared build log");
    const viaStar = await fetchOps!.execute("call_aB_5-x", { handle });
    expect(viaStar.content[0]!.text).toContain("shared build log");
    expect(viaStar.details.agentId).toBe("main");
    await rm(dir, { recursive: true, force: true });
  });
});
