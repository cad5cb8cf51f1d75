import type { EngineChoice } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import * as modules from "./index.js";
import type { HostScenario, ScenarioModel } from "./scenario.js";

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
 * (a name is also a session key and the mock's routing tag), at least one line and engine.
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
    seen.add(s.name);
  }
  return found;
}

/** A stable key per engine choice (`context-ledger`, `legacy`, `test-naive`). */
export function engineKey(engine: EngineChoice): string {
  return typeof engine === "string" ? engine : `test-${engine.testEngine}`;
}

/** One gateway's worth of scenarios: a host line, an engine, a model shape, and the scenarios that run on them. */
export interface RigPlan {
  version: HostVersion;
  engine: EngineChoice;
  /** The model shape of its scenarios, when not the default `SCENARIO_MODEL`. */
  model?: ScenarioModel;
  /** context-ledger's plugin config of its scenarios, when not the defaults. */
  ledgerConfig?: Readonly<Record<string, unknown>>;
  scenarios: HostScenario[];
}

/**
 * A stable key per gateway of a line: the engine, the window and maxTokens when not the default
 * (`context-ledger@65536/4096`), and the plugin config when not the defaults
 * (`context-ledger@65536/4096 {"maintenance":{"enabled":false}}`).
 */
export function planKey(plan: Pick<RigPlan, "engine" | "model" | "ledgerConfig">): string {
  const shape = plan.model
    ? `${engineKey(plan.engine)}@${plan.model.contextWindow}/${plan.model.maxTokens}`
    : engineKey(plan.engine);
  return plan.ledgerConfig ? `${shape} ${JSON.stringify(plan.ledgerConfig)}` : shape;
}

/**
 * The gateways a host line needs (one per engine, model shape and plugin config; legacy first, defaults first) and what
 * each serves.
 */
export function plansFor(version: HostVersion, scenarios: readonly HostScenario[] = allScenarios()): RigPlan[] {
  const plans = new Map<string, RigPlan>();
  for (const s of scenarios) {
    if (!s.lines.includes(version)) continue;
    for (const engine of s.engines) {
      const key = planKey({ engine, model: s.model, ledgerConfig: s.ledgerConfig });
      const plan = plans.get(key) ?? {
        version,
        engine,
        ...(s.model ? { model: s.model } : {}),
        ...(s.ledgerConfig ? { ledgerConfig: s.ledgerConfig } : {}),
        scenarios: [],
      };
      plan.scenarios.push(s);
      plans.set(key, plan);
    }
  }
  // Legacy first: context-ledger's scenarios compare their figures with legacy's run of the same line.
  const order = (p: RigPlan): number =>
    (engineKey(p.engine) === "legacy" ? 0 : engineKey(p.engine) === "context-ledger" ? 1 : 2) * 4 +
    (p.model ? 1 : 0) +
    (p.ledgerConfig ? 2 : 0);
  return [...plans.values()].sort((a, b) => order(a) - order(b));
}
