import type { EngineChoice } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import { agentIdOf, ownAgentOf, type HostScenario } from "./scenario.js";
import { startSharedRig } from "./shared-rig.js";

/** Options for {@link runScenarioAlone}. */
export interface RunAloneOptions {
  version: HostVersion;
  engine: EngineChoice;
  /**
   * `plugins.entries["context-ledger"].config` of the gateway. @default the shared gateway's, with the
   * scenario's {@link HostScenario.ledgerConfig} for its own agent
   */
  ledgerConfig?: Record<string, unknown>;
}

/**
 * Runs one scenario on a gateway of its own (for developing a scenario; the suite
 * shares one gateway per host line and engine, see `line-suite.ts`). The session is
 * the same as on a shared gateway (tagged messages, per-scenario turns, the agent of its
 * own for its model shape or plugin settings). Stops everything it started.
 */
export async function runScenarioAlone(scenario: HostScenario, options: RunAloneOptions): Promise<void> {
  const own = ownAgentOf(scenario);
  const shared = await startSharedRig({ ...options, agents: own ? [own] : [] });
  try {
    await scenario.run(await shared.open(scenario.name, agentIdOf(scenario)));
  } finally {
    await shared.close();
  }
}
