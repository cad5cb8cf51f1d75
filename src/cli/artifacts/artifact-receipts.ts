import type { GatewayRegistry, ArtifactStore } from "../../artifacts/index.js";
import type { ParsedArgs } from "../core/args.js";
import type { CliIo } from "../core/cli-io.js";

/** Receipt schema names of `artifact ... --json`. */
export const ARTIFACT_SCHEMAS = {
  stash: "context-ledger.artifact.stash.v1",
  fetch: "context-ledger.artifact.fetch.v1",
  peek: "context-ledger.artifact.peek.v1",
  list: "context-ledger.artifact.list.v1",
  rm: "context-ledger.artifact.rm.v1",
  gc: "context-ledger.artifact.gc.v1",
} as const;

/** What an artifact subcommand gets. */
export interface ArtifactCommandContext {
  args: ParsedArgs;
  io: CliIo;
  store: ArtifactStore;
  /** The gateways sharing the store's bucket; undefined for the file store. */
  gateways?: GatewayRegistry;
  agentId: string;
  ledgerRoot: string;
  agentDir: string;
  maxStoreBytes: number;
  json: boolean;
  /** Redacts what is shown per the agent's `redaction` settings (its own patterns included). */
  redact: (text: string) => string;
}

/** Writes a `--json` receipt. */
export function writeReceipt(io: CliIo, schema: string, body: Record<string, unknown>): void {
  io.stdout.write(`${JSON.stringify({ schema, ...body }, null, 2)}\n`);
}
