// A context-ledger engine over a temp state dir, as the benchmarks drive it.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../../dist/src/config/parse-config.js";
import { createEngine } from "../../dist/src/engine/create-engine.js";
import { createLedgerRuntime } from "../../dist/src/runtime/ledger-runtime.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Creates an engine on a fresh temp dir; `cleanup()` disposes it and removes the dir.
 * @param {object} [config] plugin config input (stateDir is set here)
 * @param {{ generation?: "2026.4" | "2026.9" }} [options] the host generation whose factory call
 *   to mimic: 2026.9 passes a context with the agent dir, 2026.4 passes none. @default "2026.9"
 */
export async function createBenchEngine(config = {}, { generation = "2026.9" } = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-bench-"));
  const services = createLedgerRuntime({ config: parseConfig({ ...config, stateDir: dir }), hostLogger: quiet });
  const engine = createEngine(
    services,
    generation === "2026.4" ? undefined : { agentDir: path.join(dir, "agents", "main", "agent") },
  );
  return {
    dir,
    services,
    engine,
    async cleanup() {
      await engine.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
