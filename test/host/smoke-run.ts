import { existsSync } from "node:fs";
import path from "node:path";
import { createHostEnv, LEDGER_ID, type HostEnv } from "./host-env.js";
import { NODE_BINARY, REPO_ROOT, type HostVersion } from "./host-install.js";
import { countHostLogSignals, readHostLog, readPluginEvents, type HostLogSignals, type PluginEvent } from "./logs.js";
import { startMockModel, type MockModel } from "./mock-model.js";
import { execTurnScript } from "./mock-scripts.js";
import { agentLocal, pluginsInspect } from "./openclaw-cli.js";
import { stopAllGroups } from "./processes.js";
import { turnMessage } from "./workloads.js";

/** The built plugin entry the smoke runs load; they skip when it is missing. */
export const BUILT_ENTRY = path.join(REPO_ROOT, "dist", "index.js");

/** True when `npm run build` has produced the plugin entry. */
export function pluginIsBuilt(): boolean {
  return existsSync(BUILT_ENTRY);
}

/** Engine ids a `plugins inspect --json` answer reports (both hosts' shapes). */
export function inspectedContextEngineIds(json: unknown): string[] {
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== "object") return;
    const obj = node as Record<string, unknown>;
    if (Array.isArray(obj.contextEngineIds)) for (const id of obj.contextEngineIds) ids.add(String(id));
    if (obj.kind === "context-engine" && Array.isArray(obj.ids)) for (const id of obj.ids) ids.add(String(id));
    Object.values(obj).forEach(walk);
  };
  walk(json);
  return [...ids];
}

/** What a smoke run observed. */
export interface SmokeResult {
  version: HostVersion;
  engineIds: string[];
  /** Plugin events of each turn (the slice of events.jsonl written during it). */
  turnEvents: PluginEvent[][];
  /** All plugin events. */
  events: PluginEvent[];
  signals: HostLogSignals;
  /** Wall times in ms: inspect, then each turn. */
  inspectMs: number;
  turnMs: number[];
  requests: number;
}

/**
 * Loads the working tree's plugin into an isolated env of `version`, checks what
 * `plugins inspect` reports, then runs `turns` embedded turns with an `exec` tool
 * call each (`agent --local`, one session) against the mock model.
 */
export async function runSmoke(version: HostVersion, turns = 3): Promise<SmokeResult> {
  let mock: MockModel | undefined;
  let env: HostEnv | undefined;
  try {
    mock = await startMockModel({ script: execTurnScript({ outputChars: 4_000, answerChars: 600, nodePath: NODE_BINARY }) });
    env = await createHostEnv({ version, baseUrl: mock.baseUrl, modelId: mock.modelId, engine: "context-ledger", contextWindow: 32_000 });
    const inspect = await pluginsInspect(env, LEDGER_ID);
    const turnEvents: PluginEvent[][] = [];
    const turnMs: number[] = [];
    const cliOutput: string[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      const before = (await readPluginEvents(env)).length;
      const result = await agentLocal(env, { sessionId: `smoke-${version}`, message: turnMessage(turn) });
      cliOutput.push(result.stdout, result.stderr);
      turnMs.push(result.ms);
      turnEvents.push((await readPluginEvents(env)).slice(before));
    }
    return {
      version,
      engineIds: inspectedContextEngineIds(inspect.json),
      turnEvents,
      events: await readPluginEvents(env),
      signals: countHostLogSignals(await readHostLog(env, [inspect.result.stdout, inspect.result.stderr, ...cliOutput])),
      inspectMs: inspect.result.ms,
      turnMs,
      requests: mock.requests.length,
    };
  } finally {
    await stopAllGroups();
    await mock?.close();
    await env?.cleanup();
  }
}
