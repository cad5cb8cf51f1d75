import type { EngineChoice } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import type { HostScenario } from "./scenario.js";
import { startSharedRig } from "./shared-rig.js";

/** Options for {@link runScenarioAlone}. */
export interface RunAloneOptions {
  version: HostVersion;
  engine: EngineChoice;
  /** `plugins.entries["context-ledger"].config`. @default the scenario's {@link HostScenario.ledgerConfig} */
  ledgerConfig?: Record<string, unknown>;
}

/**
 * Runs one scenario on a gateway of its own (for developing a scenario; the suite
 * shares one gateway per host line and engine, see `line-suite.ts`). The session is
 * the same as on a shared gateway (tagged messages, per-scenario turns, the scenario's
 * model shape). Stops everything it started.
 */
export async function runScenarioAlone(scenario: HostScenario, options: RunAloneOptions): Promise<void> {
  const ledgerConfig = options.ledgerConfig ?? (scenario.ledgerConfig ? { ...scenario.ledgerConfig } : undefined);
  const shared = await startSharedRig({ ...options, model: scenario.model, ...(ledgerConfig ? { ledgerConfig } : {}) });
  try {
    await scenario.run(await shared.open(scenario.name, scenario.agentId));
  } finally {
    await shared.close();
  }
}
