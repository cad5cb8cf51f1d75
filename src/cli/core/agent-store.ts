import { openArtifactStore, type ArtifactStore, type GatewayRegistry } from "../../artifacts/index.js";
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
  /** The gateways sharing the store's bucket; undefined for the file store. */
  gateways?: GatewayRegistry;
  /**
   * Uploads what this command stored and stops background work. A failed upload leaves it in the local spool, which
   * the gateway (or the next command) uploads from its start.
   */
  finish(): Promise<void>;
  /** Stops background work without waiting for uploads: for a command that reads and never waits on the bucket. */
  close(): Promise<void>;
}

/**
 * Opens an agent's store (see {@link openAgentStore}), runs `read` on it and closes it without waiting for uploads:
 * for a command that only reads.
 */
export async function readAgentStore<T>(
  options: AgentStoreOptions,
  read: (store: ArtifactStore) => Promise<T>,
): Promise<T> {
  const opened = openAgentStore(options);
  try {
    return await read(opened.store);
  } finally {
    await opened.close();
  }
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
    ...(opened.gateways ? { gateways: opened.gateways } : {}),
    async finish() {
      try {
        await opened.spool?.drain();
        await opened.settle?.();
      } finally {
        await opened.spool?.close();
      }
    },
    async close() {
      await opened.spool?.close();
    },
  };
}
