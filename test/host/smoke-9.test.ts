/**
 * Real-host smoke on 2026.9.6 (the dev dependency): the working tree's context-ledger
 * registers its engine, and three embedded turns with an `exec` call each run through
 * it (never "degraded to legacy"), driving the 9.6 lifecycle with commitTurn.
 */
import { describe, expect, it } from "vitest";
import { CURRENT_HOST } from "./host-install.js";
import { lifecycleSummary } from "./logs.js";
import { BUILT_ENTRY, pluginIsBuilt, runSmoke } from "./smoke-run.js";

describe.skipIf(!pluginIsBuilt())(`context-ledger on openclaw ${CURRENT_HOST}${pluginIsBuilt() ? "" : ` (skipped: ${BUILT_ENTRY} missing, run npm run build)`}`, () => {
  it("registers the engine and uses it on each of three tool turns", async () => {
    const r = await runSmoke(CURRENT_HOST, 3);
    console.log(`[smoke-9] inspect ${(r.inspectMs / 1000).toFixed(1)}s, turns ${r.turnMs.map((ms) => (ms / 1000).toFixed(1)).join("/")}s, ${r.requests} model requests`);
    r.turnEvents.forEach((events, i) => console.log(`[smoke-9] turn ${i + 1}: ${lifecycleSummary(events)}`));

    expect(r.engineIds).toContain("context-ledger");
    expect(r.signals.degradedToLegacy).toBe(0);
    expect(r.signals.quarantined).toBe(0);
    expect(r.turnEvents).toHaveLength(3);
    r.turnEvents.forEach((events, i) => {
      const ops = new Set(events.map((e) => e.op));
      // bootstrap runs once a transcript exists, i.e. from the second turn of the session.
      const expected = ["factory", "assemble", "commitTurn", "maintain", ...(i > 0 ? ["bootstrap"] : [])];
      for (const op of expected) expect(ops, `turn ${i + 1} ops: ${[...ops].join(",")}`).toContain(op);
      // 9.6 ingests through commitTurn only.
      expect(ops.has("afterTurn") || ops.has("ingest") || ops.has("ingestBatch")).toBe(false);
    });
    // Each turn made at least the tool call and the answer.
    expect(r.requests).toBeGreaterThanOrEqual(6);
  });
});
