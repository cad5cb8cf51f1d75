import { promises as fsp } from "node:fs";
import path from "node:path";
import { ensureDir, FILE_MODE } from "../fs/atomic-write.js";

/** One line of the plugin's own event log. */
export interface LedgerEvent {
  /** Lifecycle operation or event kind (`assemble`, `commitTurn`, `debt`, ...). */
  op: string;
  [field: string]: unknown;
}

/** Appends events as JSON lines; failures are swallowed (logging must never break a turn). */
export interface EventLog {
  /** Queues one event; resolves when written (or dropped). */
  write(event: LedgerEvent): Promise<void>;
  /** Waits for queued writes. */
  flush(): Promise<void>;
}

/**
 * Creates an append-only JSONL event log at `file` (0600, O_APPEND, so processes
 * interleave whole lines). `redact` is applied to each serialized line: events
 * carry error messages, which may quote secret-bearing input.
 */
export function createEventLog(file: string, redact?: (text: string) => string): EventLog {
  let chain: Promise<void> = Promise.resolve();
  let ready: Promise<void> | undefined;
  const write = (event: LedgerEvent): Promise<void> => {
    const json = JSON.stringify({ ts: new Date().toISOString(), pid: process.pid, ...event });
    const line = `${redact ? redact(json) : json}\n`;
    ready ??= ensureDir(path.dirname(file)).catch(() => undefined);
    chain = chain
      .then(() => ready)
      .then(() => fsp.appendFile(file, line, { mode: FILE_MODE }))
      .catch(() => undefined);
    return chain;
  };
  return { write, flush: () => chain };
}
