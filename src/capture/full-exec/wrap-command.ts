/**
 * The shell text that runs a user's `exec` command with its whole output teed into a private file.
 *
 * The user's command runs in the shell the host started, as the last text of the script, so it means
 * what it means plain: `$$` and `kill $$` are that shell, `exit` ends it, its traps fire at its end, an
 * unterminated here-doc or a trailing backslash meets the end of the script as it would have, and the
 * shell's exit status or death by a signal is the call's own. Only where its bytes go changes: one
 * line of plumbing before it makes a FIFO, starts {@link file://./tee-filter.ts} reading it (writing
 * every byte on to the host's stdout and the first ones to the tee file), and points the shell's stdout
 * and stderr at it with `exec` redirections. stdout and stderr merge, as `exec` merges them anyway
 * (`appendOutput` keeps one aggregated text in arrival order).
 *
 * The plumbing shares the user's first line (`...; fi; <command>`), so the shell's error messages name
 * the same line numbers as plain. The filter is started by a subshell that exits at once, so it is no
 * job of the user's shell (`wait`, `jobs` and `$!` see only the user's own). When the FIFO cannot be
 * made, the command runs untouched. POSIX sh: it runs in bash, zsh and dash alike.
 */

/** Everything the wrapper needs to know. */
export interface WrapCommandOptions {
  /** The user's command, verbatim. */
  command: string;
  /** The private file the output goes to (created by the plugin, 0600). */
  teeFile: string;
  /** Node binary that runs the filter (the gateway's own). */
  nodePath: string;
  /** The filter script. */
  filterPath: string;
  /** Bytes kept in the file at most. */
  capBytes: number;
}

/**
 * The longest single argument Linux passes to a program (`MAX_ARG_STRLEN`, 32 pages, the final NUL
 * included): a wrapped command longer than this would fail to start (E2BIG) where the plain one runs.
 */
export const MAX_SHELL_ARG_BYTES = 131_072;

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The FIFO the wrapper makes beside the tee file (removed as soon as both ends are open). */
export function fifoFileOf(teeFile: string): string {
  return `${teeFile}.fifo`;
}

/** The file the filter writes its byte counts to when the stream ended. */
export function trailerFileOf(teeFile: string): string {
  return `${teeFile}.json`;
}

/**
 * The wrapped command: one `if ...; fi; ` of plumbing, then the user's text verbatim, last. The shell
 * starts with `$?` 0 either way.
 */
export function wrapCommand(options: WrapCommandOptions): string {
  const fifo = shellQuote(fifoFileOf(options.teeFile));
  const filter = [options.nodePath, options.filterPath, options.teeFile].map(shellQuote).join(" ");
  const cap = Math.max(0, Math.floor(options.capBytes));
  // The filter's own stderr stays the host's: it writes nothing there unless it fails.
  const plumbing =
    `if mkfifo -m 600 ${fifo} 2>/dev/null; then ` +
    `( ${filter} ${cap} <${fifo} & ); exec >${fifo} 2>&1; rm -f ${fifo}; fi; `;
  return plumbing + options.command;
}

/** True when the wrapped command fits in one argument of a program (see {@link MAX_SHELL_ARG_BYTES}). */
export function fitsOneArgument(wrapped: string): boolean {
  return Buffer.byteLength(wrapped, "utf8") < MAX_SHELL_ARG_BYTES;
}
