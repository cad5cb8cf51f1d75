/**
 * The shell text that runs a user's `exec` command with its whole output teed into a private file.
 *
 * The command runs in a subshell of its own (an `exit` in it ends only that), stdout and stderr merged
 * as `exec` merges them anyway (`appendOutput` keeps one aggregated text in arrival order), piped
 * through {@link file://./tee-filter.ts}, which passes every byte on. The wrapper then ends with the
 * command's status: an exit code as it was, and a death by a fatal signal as that signal again, so the
 * host reports "aborted by signal" as it would have. POSIX sh: it runs in bash, zsh and dash alike.
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

/** Signals whose default action ends a process: re-raised on the wrapper's shell. */
const FATAL_SIGNALS = "HUP|INT|QUIT|ILL|TRAP|ABRT|BUS|FPE|KILL|USR1|SEGV|USR2|PIPE|ALRM|TERM|SYS|XCPU|XFSZ";

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The file the wrapper writes the command's status to. */
export function statusFileOf(teeFile: string): string {
  return `${teeFile}.rc`;
}

/** The file the filter writes its byte counts to when the stream ended. */
export function trailerFileOf(teeFile: string): string {
  return `${teeFile}.json`;
}

/**
 * The wrapped command. The user's text stays first and verbatim on its own lines, so a reader of the
 * call (a log, an approval prompt) sees it before the plumbing.
 */
export function wrapCommand(options: WrapCommandOptions): string {
  const rc = shellQuote(statusFileOf(options.teeFile));
  const filter = [options.nodePath, options.filterPath, options.teeFile].map(shellQuote).join(" ");
  return [
    "{ (",
    options.command,
    // The group's own stderr is dropped: a shell's "Terminated" notice about the subshell is not output.
    `) 2>&1; echo "$?" > ${rc}; } 2>/dev/null | ${filter} ${Math.max(0, Math.floor(options.capBytes))}`,
    `__cl_rc=$(cat ${rc} 2>/dev/null); rm -f ${rc}`,
    `case "$__cl_rc" in ''|*[!0-9]*) __cl_rc=1 ;; esac`,
    `if [ "$__cl_rc" -gt 128 ]; then __cl_sig=$(kill -l "$__cl_rc" 2>/dev/null); __cl_sig=\${__cl_sig#SIG}; case "$__cl_sig" in ${FATAL_SIGNALS}) kill -s "$__cl_sig" $$ ;; esac; fi`,
    `exit "$__cl_rc"`,
  ].join("\n");
}
