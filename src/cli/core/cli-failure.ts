import { errorMessage, isLedgerError, isNotFound, type LedgerErrorCode } from "../../errors.js";
import { progName, type CliIo } from "./cli-io.js";

/**
 * Exit codes of every command: 0 ok, 1 usage error, 2 not found, 3 corrupt,
 * 4 invalid handle, selector or pattern, 5 any other failure.
 */
export const EXIT = { ok: 0, usage: 1, notFound: 2, corrupt: 3, invalid: 4, other: 5 } as const;

/**
 * The one error document every `--json` command prints on failure (stdout, like the host's `{"ok":false,"error":…}`).
 */
export interface CliErrorDocument {
  ok: false;
  error: {
    /** A {@link LedgerErrorCode}, or `not_found` / `failed` for failures without one. */
    code: string;
    message: string;
    /** The exit code the process ends with. */
    exitCode: number;
    /** The command that failed, e.g. `context-ledger artifact fetch`. */
    command: string;
    /** The next command to run, when there is one. */
    hint?: string;
  };
}

/** Maps an error to the CLI exit code. */
export function exitCodeFor(err: unknown): number {
  if (!isLedgerError(err)) return isNotFound(err) ? EXIT.notFound : EXIT.other;
  const table: Partial<Record<LedgerErrorCode, number>> = {
    input_invalid: EXIT.usage,
    config_invalid: EXIT.usage,
    artifact_not_found: EXIT.notFound,
    artifact_forbidden: EXIT.notFound,
    artifact_corrupt: EXIT.corrupt,
    state_corrupt: EXIT.corrupt,
    handle_invalid: EXIT.invalid,
    selector_invalid: EXIT.invalid,
    pattern_refused: EXIT.invalid,
  };
  return table[err.code] ?? EXIT.other;
}

/** What {@link reportFailure} prints. */
export interface FailureOptions {
  /** The command words after the program name, e.g. `artifact fetch`. */
  command: string;
  /** Print the JSON error document instead of text. */
  json: boolean;
  /** The exit code; derived from `err` when absent. */
  exitCode?: number;
  /** The next command to run. @default `<prog> <command> --help` for usage errors */
  hint?: string;
  /** Usage text appended to a human usage error. */
  usage?: string;
}

/**
 * Reports a failed command and returns its exit code: with `--json`, one
 * {@link CliErrorDocument} on stdout (so a pipe into `jq` still gets JSON);
 * otherwise `<prog> <command>: <message>` and the hint on stderr. A raw
 * file-not-found error (`isNotFound`) becomes "no such file" naming the path.
 */
export function reportFailure(io: CliIo, err: unknown, options: FailureOptions): number {
  const failure = err instanceof CliFailure ? err : undefined;
  const exitCode = options.exitCode ?? failure?.exitCode ?? exitCodeFor(err);
  const prog = progName(io);
  const full = `${prog} ${options.command}`.trim();
  const errno = err as NodeJS.ErrnoException | undefined;
  const message =
    isNotFound(err) && !isLedgerError(err) && typeof errno?.path === "string"
      ? `Expected a readable file at \`${errno.path}\`, got no such file`
      : err instanceof Error
        ? err.message
        : errorMessage(err);
  const code = failure
    ? failure.code
    : isLedgerError(err)
      ? err.code
      : exitCode === EXIT.notFound || isNotFound(err)
        ? "not_found"
        : "failed";
  const hint = options.hint ?? failure?.hint ?? (exitCode === EXIT.usage ? `run \`${full} --help\`` : undefined);
  if (options.json) {
    const doc: CliErrorDocument = {
      ok: false,
      error: { code, message, exitCode, command: full, ...(hint ? { hint } : {}) },
    };
    io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    io.stderr.write(
      `${full}: ${code === "failed" ? "" : `${code}: `}${message}\n${hint ? `next: ${hint}\n` : ""}${exitCode === EXIT.usage && options.usage ? `\n${options.usage}` : ""}`,
    );
  }
  return exitCode;
}

/** A failure that is not a {@link LedgerError}: its own code, exit code and next step (e.g. an unknown session key). */
export class CliFailure extends Error {
  readonly code: string;
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(code: string, message: string, exitCode: number, hint?: string) {
    super(message);
    this.name = "CliFailure";
    this.code = code;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}
