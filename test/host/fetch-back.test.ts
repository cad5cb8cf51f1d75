/**
 * Fetch-back on every host line we claim, each on a gateway of its own (until the shared
 * rig runs the scenarios): `FETCH_BACK_LINES=2026.9.6,2026.8.2` picks lines,
 * `FETCH_BACK_LEDGER_CONFIG='{"offload":{"capture":false}}'` overrides the plugin config.
 */
import { describe, it } from "vitest";
import { HOST_LINES, type HostVersion } from "./host-install.js";
import { fetchBackResults, fetchBackScenario } from "./scenarios/fetch-back.js";
import { runScenarioAlone } from "./scenarios/run-alone.js";
import { BUILT_ENTRY, pluginIsBuilt } from "./smoke-run.js";

const DEFAULT_LINES: HostVersion[] = ["2026.9.6", "2026.8.2", "2026.5.28", "2026.4.24"];
const picked = process.env.FETCH_BACK_LINES?.split(",").map((s) => s.trim()).filter(Boolean);
const lines = (picked ?? DEFAULT_LINES).filter((v): v is HostVersion => (HOST_LINES as readonly string[]).includes(v));

describe.skipIf(!pluginIsBuilt())(`fetch-back${pluginIsBuilt() ? "" : ` (skipped: ${BUILT_ENTRY} missing, run npm run build)`}`, () => {
  for (const version of lines) {
    it(`returns lines 1200-1210 byte-exact on ${version}`, async () => {
      const t0 = Date.now();
      const scenario = fetchBackScenario();
      try {
        await runScenarioAlone(scenario, { version, engine: "context-ledger", ...(process.env.FETCH_BACK_LEDGER_CONFIG ? { ledgerConfig: JSON.parse(process.env.FETCH_BACK_LEDGER_CONFIG) as Record<string, unknown> } : {}) });
      } finally {
        const r = fetchBackResults.get(`agent:main:${scenario.name}`);
        console.log(`[fetch-back] ${version}: ${r ? `${r.linesExact}/11 lines via ${r.path}, stub cites ${r.full ? "the full output" : "a partial capture"}` : "no fetch"} in ${((Date.now() - t0) / 1000).toFixed(0)}s`);
        if (r) console.log(`[fetch-back] ${version} stub:\n${r.stub}\n[fetch-back] ${version} answer:\n${r.answer.slice(0, 1500)}`);
        fetchBackResults.delete(`agent:main:${scenario.name}`);
      }
    });
  }
});
