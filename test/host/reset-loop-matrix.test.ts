/**
 * Issue 15's real-host matrix, each scenario on a gateway of its own (the shared rig
 * will fold these in). Legacy runs first on each line: its transcript size is the
 * comparison for context-ledger's. Narrow a run with `H15_LINES=2026.6.11,2026.9.6`
 * and `H15_ENGINES=context-ledger`; `H15_SCENARIOS=long-session` for the 20-turn run.
 */
import { describe, it } from "vitest";
import type { EngineChoice } from "./host-env.js";
import { longSessionScenario } from "./scenarios/long-session.js";
import { resetLoopScenario } from "./scenarios/reset-loop.js";
import { runScenarioAlone } from "./scenarios/run-alone.js";

const pick = (env: string | undefined): string[] | undefined => env?.split(",").map((s) => s.trim()).filter(Boolean);
const lines = pick(process.env.H15_LINES);
const engines = pick(process.env.H15_ENGINES);
const scenarios = pick(process.env.H15_SCENARIOS) ?? ["reset-loop", "long-session"];

for (const scenario of [resetLoopScenario, longSessionScenario]) {
  if (!scenarios.includes(scenario.name)) continue;
  describe(scenario.name, () => {
    for (const version of scenario.lines) {
      if (lines && !lines.includes(version)) continue;
      // Legacy first: context-ledger's run compares its transcript with legacy's.
      const order = [...scenario.engines].sort((a, b) => (a === "legacy" ? -1 : b === "legacy" ? 1 : 0));
      for (const engine of order as EngineChoice[]) {
        const id = typeof engine === "string" ? engine : engine.testEngine;
        if (engines && !engines.includes(id)) continue;
        it(`${version} ${id}`, async () => {
          await runScenarioAlone(scenario, { version, engine });
        });
      }
    }
  });
}

