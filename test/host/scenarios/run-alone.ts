import { startHostRig } from "../gateway-session.js";
import type { EngineChoice } from "../host-env.js";
import type { HostVersion } from "../host-install.js";
import type { MockScript } from "../mock-model.js";
import { SCENARIO_MODEL, type HostScenario } from "./scenario.js";

/** Options for {@link runScenarioAlone}. */
export interface RunAloneOptions {
  version: HostVersion;
  engine: EngineChoice;
  /** `plugins.entries["context-ledger"].config`. */
  ledgerConfig?: Record<string, unknown>;
}

/**
 * Runs one scenario on a gateway of its own (for developing a scenario; the suite
 * shares one gateway per host line and engine). Stops everything it started.
 */
export async function runScenarioAlone(scenario: HostScenario, options: RunAloneOptions): Promise<void> {
  let script: MockScript = () => ({ text: "OK." });
  const rig = await startHostRig({
    version: options.version,
    engine: options.engine,
    contextWindow: SCENARIO_MODEL.contextWindow,
    script: (request) => script(request),
    ledgerConfig: options.ledgerConfig,
  });
  try {
    const sessionKey = `agent:main:${scenario.name}`;
    await scenario.run({
      version: options.version,
      engineId: rig.env.engineId,
      sessionKey,
      env: rig.env,
      setScript: (next) => {
        script = next;
      },
      requests: () => rig.mock.requests.slice(),
      chatSend: (message, timeoutMs) => rig.gateway.chatSend(sessionKey, message, timeoutMs),
      call: (method, params, timeoutMs) => rig.gateway.call(method, params, timeoutMs),
    });
  } finally {
    await rig.close();
  }
}
