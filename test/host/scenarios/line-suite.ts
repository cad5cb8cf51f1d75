import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureHost, type HostVersion } from "../host-install.js";
import { HOST_LOG_WORDING, missingLiterals, readHostDist, wordingsOn, type HostLogSignal } from "../log-wording.js";
import { HOST_LOG_PATTERNS } from "../logs.js";
import { expectPromptContract } from "../contract-check.js";
import { allScenarios, engineKey, engineRunsOn, planKey, plannedOn, plansFor, type RigPlan } from "./registry.js";
import { agentIdOf } from "./scenario.js";
import { startSharedRig, type SharedRig } from "./shared-rig.js";

const HOST_TEST_TIMEOUT_MS = 900_000;

/**
 * Defines the tests of one host line: per engine its scenarios need, one gateway (started
 * once, in `beforeAll`) and one `it` per scenario, run one after another on it. A scenario
 * with its own model shape or plugin settings runs on an agent of its own on that gateway
 * (`registry.ts`). Prints the gateway's start time and each scenario's wall time. A gateway
 * that died during a scenario is started again for the next one (the failure stays).
 */
export function defineLineSuite(version: HostVersion): void {
  const plans = plansFor(version);
  describe(`host ${version}`, () => {
    if (plans.length === 0) {
      it("has scenarios registered for this line", () => {
        throw new Error(`Expected a scenario in test/host/scenarios/index.ts that lists ${version}, got none`);
      });
    }
    it("the log patterns the suite counts match this host's wording (positive control)", async () => {
      const dist = await readHostDist(await ensureHost(version));
      expect(missingLiterals(dist, version)).toEqual([]);
      for (const signal of Object.keys(HOST_LOG_WORDING) as HostLogSignal[]) {
        for (const w of wordingsOn(signal, version))
          expect(w.sample.match(HOST_LOG_PATTERNS[signal]), `${signal}: ${w.sample}`).not.toBeNull();
      }
    });
    for (const plan of plans) definePlan(plan);
    // Listed, not hidden: what `npm run test:figures` and `npm run test:controls` add on this line.
    for (const s of allScenarios()) {
      if (plannedOn(s, version, { figures: true }) && !plannedOn(s, version))
        it.skip(`${s.name} (a figure: npm run test:figures)`, () => undefined);
      else if (s.engines.includes("legacy") && plannedOn(s, version) && !engineRunsOn(s, "legacy", version))
        it.skip(`${s.name}: legacy's control (npm run test:controls)`, () => undefined);
    }
  });
}

function definePlan(plan: RigPlan): void {
  const label = `[host ${plan.version} ${planKey(plan)}]`;
  describe(planKey(plan), () => {
    let shared: SharedRig | undefined;
    const times: string[] = [];
    const start = async (): Promise<SharedRig> => {
      const t0 = Date.now();
      const rig = await startSharedRig({
        version: plan.version,
        engine: plan.engine,
        agents: plan.agents,
        // With CONTEXT_LEDGER_STRICT_MOCK=1 context-ledger's requests go to a strict endpoint (a request the provider
        // would refuse fails the scenario that sent it) and legacy's are counted as it would bill them; its usage
        // reports real token counts, which the host's memory flush reads (docs/host-lines.md). By default the mock
        // is lenient and the long sessions replay their requests through the same rules afterwards.
        ...(process.env.CONTEXT_LEDGER_STRICT_MOCK === "1"
          ? { strict: plan.engine === "context-ledger" ? ("enforce" as const) : ("observe" as const) }
          : {}),
      });
      times.push(
        `gateway ${(rig.rig.gateway.startMs / 1000).toFixed(1)}s (rig ${((Date.now() - t0) / 1000).toFixed(1)}s)`,
      );
      console.log(`${label} gateway ready in ${(rig.rig.gateway.startMs / 1000).toFixed(1)}s`);
      return rig;
    };
    beforeAll(async () => {
      shared = await start();
    }, HOST_TEST_TIMEOUT_MS);
    beforeEach(async () => {
      if (shared && !shared.rig.gateway.running()) {
        console.log(`${label} the gateway died; starting it again`);
        await shared.close();
        shared = undefined;
        shared = await start();
      }
    }, HOST_TEST_TIMEOUT_MS);
    afterAll(async () => {
      await shared?.close();
      console.log(`${label} ${times.join(", ")}`);
    }, 120_000);
    for (const scenario of plan.scenarios) {
      it(
        scenario.name,
        async () => {
          if (!shared) throw new Error(`Expected the ${plan.version} gateway (${planKey(plan)}) to be running`);
          const t0 = Date.now();
          try {
            const session = await shared.open(scenario.name, agentIdOf(scenario));
            await scenario.run(session);
            // What the model read, judged on every request body of the conversation (docs/design.md).
            if (engineKey(plan.engine) === "context-ledger") {
              const checked = await expectPromptContract(session, agentIdOf(scenario));
              console.log(`${label} ${scenario.name}: prompt contract held on ${checked} requests`);
            }
          } finally {
            const s = `${scenario.name} ${((Date.now() - t0) / 1000).toFixed(1)}s`;
            times.push(s);
            console.log(`${label} ${s}`);
          }
        },
        HOST_TEST_TIMEOUT_MS,
      );
    }
  });
}
