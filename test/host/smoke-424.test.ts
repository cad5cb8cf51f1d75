/**
 * Real-host smoke on 2026.4.24 (installed on demand into .cache/): the working tree's
 * context-ledger registers its engine, and three embedded turns with an `exec` call
 * each run through it, driving the 4.24 lifecycle (assemble, afterTurn, maintain).
 */
import { describe, expect, it } from "vitest";
import { RESET_LOOP_HOST } from "./host-install.js";
import { lifecycleSummary } from "./logs.js";
import { BUILT_ENTRY, pluginIsBuilt, runSmoke } from "./smoke-run.js";

describe.skipIf(!pluginIsBuilt())(`context-ledger on openclaw ${RESET_LOOP_HOST}${pluginIsBuilt() ? "" : ` (skipped: ${BUILT_ENTRY} missing, run npm run build)`}`, () => {
  it("registers the engine and uses it on each of three tool turns", async () => {
    const r = await runSmoke(RESET_LOOP_HOST, 3);
    console.log(`[smoke-424] inspect ${(r.inspectMs / 1000).toFixed(1)}s, turns ${r.turnMs.map((ms) => (ms / 1000).toFixed(1)).join("/")}s, ${r.requests} model requests`);
    r.turnEvents.forEach((events, i) => console.log(`[smoke-424] turn ${i + 1}: ${lifecycleSummary(events)}`));

    expect(r.engineIds).toContain("context-ledger");
    expect(r.signals.degradedToLegacy).toBe(0);
    expect(r.turnEvents).toHaveLength(3);
    for (const events of r.turnEvents) {
      const ops = new Set(events.map((e) => e.op));
      for (const op of ["factory", "assemble", "afterTurn", "maintain"]) expect(ops, `ops: ${[...ops].join(",")}`).toContain(op);
      // 4.24 has no commitTurn.
      expect(ops.has("commitTurn")).toBe(false);
    }
    expect(r.requests).toBeGreaterThanOrEqual(6);
  });
});
