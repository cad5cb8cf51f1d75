/** Streams and environment a command runs with (injectable for tests). */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /**
   * How the operator reaches this CLI: `context-ledger` (standalone bin) or
   * `openclaw context-ledger` (through the host). Usage lines start with it.
   * @default "context-ledger"
   */
  prog?: string;
  /** The host's entry script when running inside `openclaw context-ledger ...` (so doctor knows its host). */
  hostEntry?: string;
}

/** The command prefix usage and hints should show. */
export function progName(io: Pick<CliIo, "prog">): string {
  return io.prog ?? "context-ledger";
}

/** Writes one JSON document (pretty, newline-terminated) on stdout. */
export function writeJson(io: Pick<CliIo, "stdout">, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Makes a closed pipe (`context-ledger artifact list | head -1`) end the
 * process quietly with exit 0 instead of an unhandled EPIPE stack trace.
 * Idempotent per stream.
 */
export function exitQuietlyOnEpipe(
  stream: NodeJS.WritableStream,
  exit: (code: number) => void = (c) => process.exit(c),
): void {
  const marked = stream as NodeJS.WritableStream & { __ledgerEpipe?: boolean };
  if (marked.__ledgerEpipe) return;
  marked.__ledgerEpipe = true;
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") exit(0);
    else throw err;
  });
}
