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

/** Options of {@link createEventLog}. */
export interface EventLogOptions {
  /** Applied to every string in an event (events carry error messages, which may quote secret-bearing input). */
  redact?: (text: string) => string;
  /**
   * Size at which the log is rotated: `events.jsonl` becomes `events.1.jsonl` (replacing the one before), so the
   * log never holds more than about twice this. @default 8 MiB
   */
  maxBytes?: number;
}

/** Default rotation size of the event log. */
const EVENT_LOG_MAX_BYTES = 8 * 1024 * 1024;

/** The rotated log beside `file` (`events.jsonl` → `events.1.jsonl`). */
export function rotatedEventLogPath(file: string): string {
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}.1${ext}`;
}

function redactDeep(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === "string") return redact(value);
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact, depth + 1)]));
}

/**
 * Creates an append-only JSONL event log at `file` (0600, O_APPEND, so processes
 * interleave whole lines). Redaction applies to the values before serialising, so a
 * rule can never break a line's JSON; the log rotates at `maxBytes`.
 */
export function createEventLog(file: string, options: EventLogOptions = {}): EventLog {
  const maxBytes = options.maxBytes ?? EVENT_LOG_MAX_BYTES;
  let chain: Promise<void> = Promise.resolve();
  let size: Promise<number> | undefined;
  const append = async (line: string): Promise<void> => {
    size ??= ensureDir(path.dirname(file)).then(() =>
      fsp.stat(file).then(
        (st) => st.size,
        () => 0,
      ),
    );
    let bytes = await size;
    if (bytes > 0 && bytes + line.length > maxBytes) {
      await fsp.rename(file, rotatedEventLogPath(file)).catch(() => undefined);
      bytes = 0;
    }
    await fsp.appendFile(file, line, { mode: FILE_MODE });
    size = Promise.resolve(bytes + Buffer.byteLength(line));
  };
  const write = (event: LedgerEvent): Promise<void> => {
    const record = { ts: new Date().toISOString(), pid: process.pid, ...event };
    const line = `${JSON.stringify(options.redact ? redactDeep(record, options.redact) : record)}\n`;
    chain = chain.then(() => append(line)).catch(() => undefined);
    return chain;
  };
  return { write, flush: () => chain };
}
