import { spawn } from "node:child_process";

/** Fenced block languages whose lines are shell commands (`console`: only the `$ ` lines). */
const SHELL_FENCES = new Set(["sh", "bash", "shell", "console"]);

/**
 * The shell commands of a Markdown document's fenced `sh` / `bash` / `shell` blocks (every non-comment line) and
 * `console` blocks (the lines after `$ `), trailing `# comments` removed, in document order.
 */
export function markdownShellCommands(markdown: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const raw of markdown.split("\n")) {
    const line = raw.trimEnd();
    const open = /^\s*```\s*([\w-]*)/.exec(line);
    if (open) {
      fence = fence === undefined ? (open[1] ?? "") : undefined;
      continue;
    }
    if (fence === undefined || !SHELL_FENCES.has(fence)) continue;
    const text = fence === "console" ? (/^\s*\$ (.*)$/.exec(line)?.[1] ?? "") : line;
    const command = stripComment(text).trim();
    if (command && !command.startsWith("#")) out.push(command);
  }
  return out;
}

/** The inline code spans of a text (doctor's findings quote their commands that way). */
export function inlineCodeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
}

/** `text` without a trailing unquoted `# comment`. */
function stripComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "#" && (i === 0 || /\s/.test(text[i - 1] ?? ""))) return text.slice(0, i);
  }
  return text;
}

/**
 * True when a printed command is a template rather than a command: it holds a placeholder (`<handle>`, `KEY`,
 * `DIR`, `...`) that the reader is meant to replace.
 */
export function hasPlaceholder(command: string): boolean {
  if (/<[^>\s]+( [^>]+)?>|\.\.\.|…/.test(command)) return true;
  return command.split(/\s+/).some((word) => /^(?:--[\w-]+=)?[A-Z][A-Z0-9_]*(?:-[A-Z0-9]+)?$/.test(word));
}

/**
 * The `context-ledger ...` commands of a Markdown document that run as they stand (no placeholder): what a drift
 * test pastes from the operator guide, or from the README.
 */
export function pasteableLedgerCommands(markdown: string): string[] {
  return markdownShellCommands(markdown).filter((c) => /^context-ledger(\s|$)/.test(c) && !hasPlaceholder(c));
}

/** Outcome of one pasted command. */
export interface PastedRun {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` exactly as printed, the way a person pastes it: one `bash` with aliases on (so an `alias` line in
 * `prelude`, run first, works as it does in an interactive shell), in `cwd` with `env`.
 */
export function runPasted(
  command: string,
  options: { env: NodeJS.ProcessEnv; cwd: string; prelude?: readonly string[]; timeoutMs?: number },
): Promise<PastedRun> {
  const script = [...(options.prelude ?? []), command].join("\n");
  return new Promise((resolve) => {
    const child = spawn("bash", ["-O", "expand_aliases", "-c", script], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", (err) => resolve({ command, code: null, stdout, stderr: `${stderr}${err.message}` }));
    child.once("close", (code) => resolve({ command, code, stdout, stderr }));
  });
}

/** The CLI's documented exit codes: 0 ok, 1 usage, 2 not found, 3 corrupt, 4 invalid input, 5 other failure. */
export const CLI_EXIT_CODES: readonly number[] = [0, 1, 2, 3, 4, 5];

/**
 * Why a pasted command did not run as printed, or undefined when it did: the shell could not find or execute it
 * (126, 127), it exited outside the CLI's documented codes, or the CLI did not know the command or an option.
 * A documented failure (a `--format bogus` example exiting 1 with its error) still counts as run as printed.
 */
export function notRunAsPrinted(run: PastedRun): string | undefined {
  if (run.code === 126 || run.code === 127) return `the shell could not run it (exit ${run.code}): ${run.stderr}`;
  if (run.code === null || !CLI_EXIT_CODES.includes(run.code)) return `exit ${String(run.code)}: ${run.stderr}`;
  if (/unknown command|Unknown option/.test(run.stderr)) return `the CLI does not know it: ${run.stderr}`;
  return undefined;
}
