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
 * The filter lives outside the command's process group and session, so no signal the command sends its
 * group (`kill 0`, the host stopping the call) reaches it: it ends when the stream ends, after its
 * trailer. Two FIFO handshakes order the start. The filter's process opens the data FIFO while still
 * in the group with default signal dispositions (a shell that dies before its end is open leaves it
 * killable by the host's group kill, never a stray holder of the host's pipe). It then ignores every
 * catchable signal and opens the ready FIFO, which the user's shell reads to its end; `setsid` moves it
 * to a session of its own, and only there is the ready FIFO closed. So the user's command starts once
 * the filter is out of reach. Node runs with `--disable-sigusr1` (no inspector to open) and an empty
 * environment (no `NODE_OPTIONS` such as `--inspect`).
 *
 * The plumbing shares the user's first line (`...; fi; <command>`), so `$LINENO`, `caller` and the
 * shell's error messages name the same line numbers as plain, and `set -x` traces only the user's
 * commands. What the shell says while it parses that first line, before any of it ran, names the plumbing
 * too: bash quotes the whole line in a syntax error, and its warning about an unterminated here-doc misses
 * the tee file. Telling those commands apart before wrapping takes a shell parser, or a child process the
 * hosts' install scanners refuse. The filter is started by a subshell that exits at once, so it is no
 * job of the user's shell (`wait`, `jobs` and `$!` see only the user's own). When the FIFO cannot be
 * made, the command runs untouched. POSIX sh: it runs in bash, zsh and dash alike.
 */

/** The programs that start the filter, by absolute path (see `resolveFilterLauncher`). */
export interface FilterLauncher {
  /** Node binary that runs the filter (the gateway's own). */
  nodePath: string;
  /** The filter script. */
  filterPath: string;
  /** `setsid` (util-linux): the filter's own session. */
  setsidPath: string;
  /** A POSIX shell that closes the ready FIFO once in the new session. */
  shPath: string;
  /** `env`, to start Node with an empty environment. */
  envPath: string;
}

/** Everything the wrapper needs to know. */
export interface WrapCommandOptions extends FilterLauncher {
  /** The user's command, verbatim. */
  command: string;
  /** The private file the output goes to (created by the plugin, 0600). */
  teeFile: string;
  /** Bytes kept in the file at most. */
  capBytes: number;
}

/**
 * Signals ignored from the fork of the filter's process until `setsid` moved it out of the command's
 * group (Node resets them to their defaults when it starts; by then no group signal reaches it).
 */
const IGNORED_UNTIL_SETSID =
  "HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM TSTP TTIN TTOU XCPU XFSZ VTALRM PROF SYS";

/** `text` as one single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The FIFO the wrapper makes beside the tee file (removed as soon as both ends are open). */
export function fifoFileOf(teeFile: string): string {
  return `${teeFile}.fifo`;
}

/** The FIFO the user's shell reads to its end before the command starts (removed with the other). */
export function readyFileOf(teeFile: string): string {
  return `${teeFile}.ready`;
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
  const ready = shellQuote(readyFileOf(options.teeFile));
  const cap = Math.max(0, Math.floor(options.capBytes));
  // In the new session a shell closes the ready FIFO (fd 3) and becomes Node.
  const start = [
    shellQuote(options.setsidPath),
    shellQuote(options.shPath),
    "-c",
    shellQuote('exec 3>&-; exec "$@"'),
    "sh",
    shellQuote(options.envPath),
    "-i",
    shellQuote(options.nodePath),
    "--disable-sigusr1",
    shellQuote(options.filterPath),
    shellQuote(options.teeFile),
    String(cap),
  ].join(" ");
  // The filter's own stderr stays the host's: it writes nothing there unless it fails. The last command the
  // shell itself runs is a bare `exec` either way, so bash's `$_` reads `exec`, never a path of the plumbing.
  const plumbing =
    `if mkfifo -m 600 ${fifo} ${ready} 2>/dev/null; then ` +
    `( { trap '' ${IGNORED_UNTIL_SETSID}; exec 3>${ready}; exec ${start}; } <${fifo} & ); ` +
    `exec >${fifo} 2>&1; (read x; rm -f ${fifo} ${ready}) <${ready}; else exec; fi; `;
  return plumbing + options.command;
}
