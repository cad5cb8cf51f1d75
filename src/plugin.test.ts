import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../test/support/temp-dir.js";
import { createArtifactStore } from "./artifacts/index.js";
import plugin from "./plugin.js";
import type { LedgerTool, LedgerToolContext } from "./retrieval/tools.js";
import { artifactRoot } from "./state/paths.js";

const dir = useTempDir("ledger-register-");

/** Listener counts of every event of the process and its output streams. */
function listenerCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [name, emitter] of [
    ["process", process],
    ["stdout", process.stdout],
    ["stderr", process.stderr],
  ] as const)
    for (const event of emitter.eventNames()) counts[`${name}:${String(event)}`] = emitter.listenerCount(event);
  return counts;
}

/** A host API as 2026.9.x passes it: engine, tools, hooks, CLI and chat command. */
function hostApi(stateDir: string, engines: ((ctx?: unknown) => unknown)[]) {
  const program = {
    command: () => program,
    description: () => program,
    allowUnknownOption: () => program,
    helpOption: () => program,
    argument: () => program,
    action: () => program,
    addHelpText: () => program,
  };
  return {
    pluginConfig: { stateDir },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    runtime: { version: "2026.9.6" },
    registerContextEngine: (_id: string, factory: (ctx?: unknown) => unknown) => engines.push(factory),
    registerTool() {},
    registerCommand() {},
    on() {},
    registerCli: (register: (ctx: { program: typeof program }) => void) => register({ program }),
  };
}

describe("plugin registration", () => {
  it("registering a dozen times (agent contexts, hot reloads) adds no listener to the process or its streams", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    const before = listenerCounts();
    const engines: ((ctx?: unknown) => unknown)[] = [];
    for (let i = 0; i < 12; i++) plugin.register(hostApi(dir(), engines) as never);
    for (const factory of engines) {
      const engine = (await factory({ agentDir: `${dir()}/agents/main/agent` })) as { dispose?: () => Promise<void> };
      await engine.dispose?.();
    }
    const after = listenerCounts();
    process.off("warning", onWarning);
    expect(engines).toHaveLength(12);
    expect(after).toEqual(before);
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });
});

describe("ledger_peek as registered", () => {
  it("hides a secret that only the calling agent's own redaction patterns match", async () => {
    const stateDir = path.join(dir(), "ledger");
    let factory: ((ctx?: LedgerToolContext) => LedgerTool[]) | undefined;
    const api = {
      ...hostApi(stateDir, []),
      pluginConfig: { stateDir, agents: { ops: { redaction: { patterns: ["INTERNAL-[0-9]{6}"] } } } },
      registerTool: (f: (ctx?: LedgerToolContext) => LedgerTool[]) => {
        factory = f;
      },
    };
    plugin.register(api as unknown as Parameters<typeof plugin.register>[0]);
    const text = "deploy ok\nticket INTERNAL-482913 opened\n";
    const peekAs = async (agentId: string) => {
      const { handle } = await createArtifactStore({ root: artifactRoot(stateDir, agentId) }).stash(text, {
        kind: "tool-output",
      });
      const peek = factory!({ agentId }).find((t) => t.name === "ledger_peek")!;
      return (await peek.execute("call", { handle })).content[0]!.text;
    };
    const ops = await peekAs("ops");
    expect(ops).toContain("ticket [REDACTED] opened");
    expect(ops).not.toContain("INTERNAL-482913");
    expect(await peekAs("main")).toContain("INTERNAL-482913");
  });
});
