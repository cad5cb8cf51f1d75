/**
 * How long the shell's `-c` argument is once a host line has wrapped an `exec` command in its own text
 * ({@link ExecArgumentRule}). Linux refuses to start a program with one argument of `MAX_ARG_STRLEN` bytes
 * or more (E2BIG), so a plugin that rewrites a command checks the host's argument, not its own text.
 *
 * Where the host's text depends on what the plugin cannot see exactly (the env lines it restores, the
 * legacy state folder it may pick), the count is an upper bound: a command counted too long runs as it
 * was written, never one that fails to start.
 */
import os from "node:os";
import path from "node:path";
import type { ExecArgumentRule } from "./host-lines.js";

/**
 * The longest single argument Linux passes to a program (`MAX_ARG_STRLEN`, 32 pages, the final NUL
 * included).
 */
export const MAX_ARG_STRLEN = 131_072;

/** Every line's rule at once, for a host whose line is not known. */
export const WIDEST_EXEC_ARGUMENT: Readonly<ExecArgumentRule> = Object.freeze({
  pathPrependPrefix: true,
  snapshotEval: true,
});

/** What the host's text around a command depends on. */
export interface ExecArgumentContext {
  /** The host line's rule ({@link WIDEST_EXEC_ARGUMENT} when the line is not known). */
  rule: ExecArgumentRule;
  /** The gateway's environment (state folder, home, the snapshot switch, the env lines restored). */
  env: NodeJS.ProcessEnv;
  /** The call's own `env` parameter, when it has one. */
  callEnv?: unknown;
}

/** The env names the hosts' snapshot restores when the call's env differs (`SAFE_ENV_NAMES`, 6.11-9.6). */
const SNAPSHOT_ENV_NAMES = [
  "ASDF_DIR",
  "BUN_INSTALL",
  "CARGO_HOME",
  "CDPATH",
  "GOENV_ROOT",
  "GOPATH",
  "GOROOT",
  "HOMEBREW_CELLAR",
  "HOMEBREW_PREFIX",
  "HOMEBREW_REPOSITORY",
  "INFOPATH",
  "MANPATH",
  "NVM_DIR",
  "PATH",
  "PNPM_HOME",
  "PYENV_ROOT",
  "RBENV_ROOT",
  "RUSTUP_HOME",
  "VOLTA_HOME",
] as const;

const PATH_PREPEND_PREFIX = 'export PATH="${OPENCLAW_PREPEND_PATH}${PATH:+:$PATH}"; unset OPENCLAW_PREPEND_PATH; ';
/** Longest name of a state folder the hosts pick in the home folder (`.openclaw` or a legacy name). */
const STATE_DIR_NAME_BOUND = 16;
/** `<sha256 hex>.sh`, the snapshot's file name. */
const SNAPSHOT_NAME_BYTES = 64 + 3;

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/** Bytes of `text` as one single-quoted shell word, as the hosts' `shQuote` writes it. */
export function shellQuotedBytes(text: string): number {
  let quotes = 0;
  for (let i = text.indexOf("'"); i !== -1; i = text.indexOf("'", i + 1)) quotes += 1;
  return bytes(text) + 3 * quotes + 2;
}

function snapshotDisabled(env: NodeJS.ProcessEnv): boolean {
  const v = env.OPENCLAW_EXEC_SHELL_SNAPSHOT?.trim().toLowerCase();
  return v === "0" || v === "false" || v === "no" || v === "off";
}

/** Bytes of the snapshot's path at most (`<state>/cache/shell-snapshots/<key>.sh`). */
function snapshotPathBytes(env: NodeJS.ProcessEnv): number {
  const homes = [env.OPENCLAW_HOME, env.HOME, os.homedir()].filter((h): h is string => typeof h === "string");
  const home = Math.max(...homes.map((h) => bytes(path.resolve(h))));
  const override = env.OPENCLAW_STATE_DIR?.trim();
  const state = override
    ? bytes(path.resolve(override.replace(/^~(?=$|\/)/, ""))) + home
    : home + 1 + STATE_DIR_NAME_BOUND;
  return state + bytes("/cache/shell-snapshots/") + SNAPSHOT_NAME_BYTES;
}

/** Bytes of the env lines the snapshot wrapper restores, at most: one per name, the longest value either side has. */
function envRestoreBytes(env: NodeJS.ProcessEnv, callEnv: unknown): number {
  const call = callEnv && typeof callEnv === "object" ? (callEnv as Record<string, unknown>) : {};
  let total = 0;
  for (const name of SNAPSHOT_ENV_NAMES) {
    const values = [env[name], call[name]].filter((v): v is string => typeof v === "string");
    const longest = Math.max(
      bytes(`unset ${name}`),
      ...values.map((v) => bytes(`export ${name}=`) + shellQuotedBytes(v)),
    );
    total += longest + 1;
  }
  return total;
}

/**
 * Bytes of the `-c` argument the host builds around `command` (an upper bound where the host's text
 * depends on its call env), without the final NUL.
 */
export function hostExecArgumentBytes(command: string, context: ExecArgumentContext): number {
  const { rule, env } = context;
  const inner = (rule.pathPrependPrefix ? bytes(PATH_PREPEND_PREFIX) : 0) + bytes(command);
  if (!rule.snapshotEval || snapshotDisabled(env)) return inner;
  const snapshot = snapshotPathBytes(env);
  // `if [ -r 'P' ]; then . 'P'; fi` + "\n" + env lines + "\n" + `eval 'command'`; a `'` in the command costs 4.
  const snapshotLine = bytes("if [ -r '' ]; then . ''; fi") + 2 * snapshot + 1;
  const quotes = shellQuotedBytes(command) - bytes(command) - 2;
  return snapshotLine + envRestoreBytes(env, context.callEnv) + bytes("eval ''") + inner + quotes;
}

/** True when the host can start the shell with `command` as its `-c` argument (see {@link MAX_ARG_STRLEN}). */
export function fitsHostExecArgument(command: string, context: ExecArgumentContext): boolean {
  return hostExecArgumentBytes(command, context) < MAX_ARG_STRLEN;
}
