/**
 * The closed set of failure codes context-ledger reports. Each code names one
 * kind of failure an operator or caller can act on.
 */
export type LedgerErrorCode =
  | "config_invalid"
  | "handle_invalid"
  | "artifact_not_found"
  | "artifact_corrupt"
  | "artifact_forbidden"
  | "path_outside_store"
  | "lock_timeout"
  | "selector_invalid"
  | "pattern_refused"
  | "store_full"
  | "state_corrupt"
  | "input_invalid"
  | "io_failed"
  | "tokenizer_unavailable"
  | "node_unsupported"
  | "aborted";

/** Options accepted by {@link LedgerError}. */
export interface LedgerErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * The one error type of context-ledger. Messages say what was expected and
 * what was got; `code` is machine-readable.
 */
export class LedgerError extends Error {
  /** Machine-readable failure code. */
  readonly code: LedgerErrorCode;

  constructor(code: LedgerErrorCode, message: string, options: LedgerErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "LedgerError";
    this.code = code;
  }
}

/** True when `err` is a {@link LedgerError}, optionally with the given code. */
export function isLedgerError(err: unknown, code?: LedgerErrorCode): err is LedgerError {
  return err instanceof LedgerError && (code === undefined || err.code === code);
}

/**
 * Renders a value for an error message: short, typed, never the whole payload.
 * `describeValue(-5)` is "`-5` (number)".
 */
export function describeValue(value: unknown): string {
  if (value === null) return "`null`";
  if (value === undefined) return "`undefined`";
  const type = Array.isArray(value) ? "array" : typeof value;
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return `\`${text}\` (${type})`;
}

/** The message of any thrown value, for logs. */
export function errorMessage(err: unknown): string {
  if (err instanceof LedgerError) return `${err.code}: ${err.message}`;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** True when an errno-style error says the file is not there (`ENOENT`, or `ENOTDIR`: a parent is not a folder). */
export function isNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
