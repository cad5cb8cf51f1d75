import { agentOverrideSchema } from "../../../src/config/schema.js";
import type { EngineChoice } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import * as modules from "./index.js";
import {
  allControlsRun,
  figuresRun,
  legacyControlOn,
  ownAgentOf,
  type HostScenario,
  type ScenarioAgent,
} from "./scenario.js";

/** True for a value shaped like a {@link HostScenario}. */
export function isHostScenario(value: unknown): value is HostScenario {
  const s = value as Partial<HostScenario> | undefined;
  return (
    typeof s === "object" &&
    s !== null &&
    typeof s.name === "string" &&
    Array.isArray(s.lines) &&
    Array.isArray(s.engines) &&
    typeof s.run === "function"
  );
}

/**
 * Every scenario the registry (`index.ts`) exports, checked: names unique and kebab-case
 * (a name is also a session key, the mock's routing tag, and the id of a scenario's own agent),
 * at least one line and engine; a scenario with its own model shape or plugin settings names no
 * other agent, and its settings are ones an agent can have.
 */
export function allScenarios(): HostScenario[] {
  const found: HostScenario[] = [];
  for (const [moduleName, exported] of Object.entries(modules)) {
    const scenarios = Object.values(exported as Record<string, unknown>).filter(isHostScenario);
    if (scenarios.length === 0)
      throw new Error(`Expected scenarios/index.ts entry "${moduleName}" to export a HostScenario, got none`);
    found.push(...scenarios);
  }
  const seen = new Set<string>();
  for (const s of found) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(s.name)) throw new Error(`Expected a kebab-case scenario name, got "${s.name}"`);
    if (seen.has(s.name)) throw new Error(`Expected unique scenario names, got "${s.name}" twice`);
    if (s.lines.length === 0 || s.engines.length === 0)
      throw new Error(`Expected scenario "${s.name}" to list at least one host line and one engine`);
    if (ownAgentOf(s) && s.agentId !== undefined)
      throw new Error(`Expected scenario "${s.name}" with its own model or ledgerConfig to name no agentId`);
    const settings = s.ledgerConfig === undefined ? undefined : agentOverrideSchema.safeParse(s.ledgerConfig);
    if (settings && !settings.success)
      throw new Error(
        `Expected scenario "${s.name}"'s ledgerConfig to be per-agent settings: ${settings.error.message}`,
      );
    seen.add(s.name);
  }
  return found;
}

/** A stable key per engine choice (`context-ledger`, `legacy`, `test-naive`). */
export function engineKey(engine: EngineChoice): string {
  return typeof engine === "string" ? engine : `test-${engine.testEngine}`;
}

/**
 * One gateway's worth of scenarios: a host line, an engine (the context-engine slot is one per
 * gateway), the agents of their own that some of them run on, and the scenarios, in order.
 */
export interface RigPlan {
  version: HostVersion;
  engine: EngineChoice;
  /** The agents with a model shape or plugin settings of their own ({@link ownAgentOf}), one per such scenario. */
  agents: ScenarioAgent[];
  scenarios: HostScenario[];
}

/** A stable key per gateway of a line: its engine. */
export function planKey(plan: Pick<RigPlan, "engine">): string {
  return engineKey(plan.engine);
}

/** Whether {@link plansFor} runs scenario `s` on `version`: a line it lists, a figure only where `figures` is true. */
export function plannedOn(
  s: HostScenario,
  version: HostVersion,
  options: { figures?: boolean } = { figures: figuresRun() },
): boolean {
  return s.lines.includes(version) && (s.figure !== true || options.figures === true);
}

/** What a run adds to `npm test`'s plan: the figure scenarios, every legacy control on every line. */
export interface PlanOptions {
  figures?: boolean;
  allControls?: boolean;
}

/** This run's {@link PlanOptions}, from its environment. */
function thisRun(): PlanOptions {
  return { figures: figuresRun(), allControls: allControlsRun() };
}

/**
 * Whether scenario `s` runs with `engine` on `version`: where it is planned, and for its `legacy` control, on a line of
 * {@link HostScenario.legacyLines} unless `options.allControls` (every control on every line).
 */
export function engineRunsOn(
  s: HostScenario,
  engine: EngineChoice,
  version: HostVersion,
  options: PlanOptions = thisRun(),
): boolean {
  if (!plannedOn(s, version, options)) return false;
  return engineKey(engine) !== "legacy" || legacyControlOn(s, version, options.allControls === true);
}

/**
 * The gateways a host line needs (one per engine; legacy first, then context-ledger) and what each serves.
 * A scenario with its own model shape or plugin settings runs on an agent of its own on its engine's
 * gateway, after the scenarios of the default shape. The figure scenarios only where `options.figures` is true; a
 * legacy control outside its {@link HostScenario.legacyLines} only where `options.allControls` is.
 */
export function plansFor(
  version: HostVersion,
  scenarios: readonly HostScenario[] = allScenarios(),
  options: PlanOptions = thisRun(),
): RigPlan[] {
  const plans = new Map<string, RigPlan>();
  for (const s of scenarios) {
    for (const engine of s.engines) {
      if (!engineRunsOn(s, engine, version, options)) continue;
      const key = planKey({ engine });
      const plan = plans.get(key) ?? { version, engine, agents: [], scenarios: [] };
      const own = ownAgentOf(s);
      if (own) plan.agents.push(own);
      plan.scenarios.push(s);
      plans.set(key, plan);
    }
  }
  // Legacy first: context-ledger's scenarios compare their figures with legacy's run of the same line.
  const order = (p: RigPlan): number =>
    engineKey(p.engine) === "legacy" ? 0 : engineKey(p.engine) === "context-ledger" ? 1 : 2;
  const ownLast = (s: HostScenario): number => (ownAgentOf(s) ? 1 : 0);
  return [...plans.values()]
    .sort((a, b) => order(a) - order(b))
    .map((p) => ({ ...p, scenarios: [...p.scenarios].sort((a, b) => ownLast(a) - ownLast(b)) }));
}
