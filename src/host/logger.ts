/** The subset of the host's plugin logger that context-ledger uses. */
export interface HostLogger {
  debug?: (message: string) => void;
  info: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string) => void;
}

/** Log levels, lowest first. */
const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A prefixed, level-filtered logger that never throws. */
export interface LedgerLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Options for {@link createLedgerLogger}. */
export interface LedgerLoggerOptions {
  /** Lowest level written. @default "info" */
  level?: LogLevel;
  /** Applied to every line before it is written (secret redaction). */
  redact?: (text: string) => string;
}

/**
 * Wraps the host logger (or the console when the host gives none): every line
 * starts with `[context-ledger]`, passes through `redact`, and a failing sink is ignored.
 */
export function createLedgerLogger(sink: HostLogger | undefined, options: LedgerLoggerOptions = {}): LedgerLogger {
  const min = LOG_LEVELS.indexOf(options.level ?? "info");
  const out: HostLogger = sink ?? {
    debug: (m) => console.debug(m),
    info: (m) => console.info(m),
    warn: (m) => console.warn(m),
    error: (m) => console.error(m),
  };
  const emit = (level: LogLevel, message: string): void => {
    if (LOG_LEVELS.indexOf(level) < min) return;
    const line = `[context-ledger] ${options.redact ? options.redact(message) : message}`;
    try {
      const fn = level === "debug" ? (out.debug ?? out.info) : out[level];
      fn.call(out, line);
    } catch {
      // A broken sink must not take the engine down.
    }
  };
  return {
    debug: (m) => emit("debug", m),
    info: (m) => emit("info", m),
    warn: (m) => emit("warn", m),
    error: (m) => emit("error", m),
  };
}
