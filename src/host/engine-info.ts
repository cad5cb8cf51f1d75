import { ENGINE_ID, PLUGIN_VERSION } from "../version.js";

export { ENGINE_ID };

/**
 * What the engine declares to the host. `transcriptSemantics` with both fences
 * and `commitTurn` are what 2026.9.x needs to use the engine at all (otherwise
 * it silently runs `legacy`); `assemblyIsPromptAuthoritative` is context-ledger's
 * own flag: the assembled view is the prompt, raw-history pressure is debt.
 */
export const ENGINE_INFO = Object.freeze({
  id: ENGINE_ID,
  name: "context-ledger",
  version: PLUGIN_VERSION,
  ownsCompaction: true,
  assemblyIsPromptAuthoritative: true,
  acceptedHostParams: ["sessionKey", "prompt", "runtimeSettings", "sessionTarget", "runtimeContext", "abortSignal"],
  transcriptSemantics: Object.freeze({
    currentTurnFence: "before-current-turn-entry-v1" as const,
    turnAdvancementIdempotency: "atomic-idempotent-v1" as const,
  }),
  turnMaintenanceMode: "foreground" as const,
});
