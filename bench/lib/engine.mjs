// A context-ledger engine over a temp state dir, as the benchmarks drive it.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../../dist/src/config/parse-config.js";
import { createEngine } from "../../dist/src/engine/create-engine.js";
import { createLedgerRuntime } from "../../dist/src/runtime/ledger-runtime.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Creates an engine (2026.9 factory context) on a fresh temp dir; `cleanup()`
 * disposes it and removes the dir.
 * @param {object} [config] plugin config input (stateDir is set here)
 */
export async function createBenchEngine(config = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-bench-"));
  const rt = createLedgerRuntime({ config: parseConfig({ ...config, stateDir: dir }), hostLogger: quiet });
  const engine = createEngine(rt, { agentDir: path.join(dir, "agents", "main", "agent") });
  return {
    dir,
    rt,
    engine,
    async cleanup() {
      await engine.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
