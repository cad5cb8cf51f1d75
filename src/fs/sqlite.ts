import { LedgerError } from "../errors.js";

/** Node's `DatabaseSync` class (`node:sqlite`). */
export type DatabaseSyncClass = typeof import("node:sqlite").DatabaseSync;

/**
 * Node's SQLite (`node:sqlite`, Node 22.5 and later), which reads the transcript store of hosts from 2026.8.
 * Looked up when needed, not imported: the CLI must load on Node 20 for every command that needs no SQLite.
 * Throws `node_unsupported` naming the Node version needed when it is missing.
 */
export function sqliteDatabaseClass(): DatabaseSyncClass {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const sqlite = getBuiltin?.call(process, "node:sqlite") as { DatabaseSync?: DatabaseSyncClass } | undefined;
  if (sqlite?.DatabaseSync) return sqlite.DatabaseSync;
  throw new LedgerError(
    "node_unsupported",
    `Expected Node 22.5 or later (24, as openclaw itself needs) to read the host's SQLite transcript store (node:sqlite), got Node ${process.version}; run the command with the node openclaw runs on, or through \`openclaw context-ledger\``,
  );
}
