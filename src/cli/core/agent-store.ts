import { openArtifactStore } from "../../artifacts/open-store.js";
import type { ArtifactStore } from "../../artifacts/store-types.js";
import { resolveAgentSettings } from "../../config/parse-config.js";
import type { LedgerConfig } from "../../config/schema.js";
import { artifactRoot, encodeSegment } from "../../state/paths.js";

/** Options of {@link openAgentStore}. */
export interface AgentStoreOptions {
  config: LedgerConfig;
  ledgerRoot: string;
  agentId: string;
  /** Where the bucket's credentials are read from (the command's environment). */
  env: NodeJS.ProcessEnv;
  /** Cap on stored bytes of a file store. @default undefined (no cap) */
  maxStoreBytes?: number;
}

/** An agent's store opened for one command, and how to finish with it. */
export interface AgentStore {
  store: ArtifactStore;
  /**
   * Uploads what this command stored and stops background work. A failed upload leaves it in the local spool, which
   * the gateway (or the next command) uploads from its start.
   */
  finish(): Promise<void>;
}

/**
 * Opens an agent's artifact store as the gateway does, on the configured
 * backend (a bucket too), for a command: what the command reads is what the
 * gateway stored, and what it stores reaches the same place.
 */
export function openAgentStore(options: AgentStoreOptions): AgentStore {
  const { config, ledgerRoot, agentId, env, maxStoreBytes } = options;
  const opened = openArtifactStore({
    root: artifactRoot(ledgerRoot, agentId),
    settings: resolveAgentSettings(config, agentId).store,
    agentSegment: encodeSegment(agentId),
    env,
    ...(maxStoreBytes === undefined ? {} : { maxStoreBytes }),
  });
  return {
    store: opened.store,
    async finish() {
      try {
        await opened.spool?.drain();
        await opened.settle?.();
      } finally {
        await opened.spool?.close();
      }
    },
  };
}
