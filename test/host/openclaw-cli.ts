import path from "node:path";
import type { HostEnv } from "./host-env.js";
import { lowPriority, NODE_BINARY, REPO_ROOT } from "./host-install.js";
import { spawnGroup, stopGroup } from "./processes.js";

/** Outcome of one CLI run. */
export interface CliResult {
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time in milliseconds. */
  ms: number;
  timedOut: boolean;
}

/** Options for {@link runOpenclaw}. */
export interface RunOpenclawOptions {
  /** Kill the process group after this long. @default 300000 */
  timeoutMs?: number;
  /** At the lowest CPU and I/O priority ({@link lowPriority}), for work done beside the tests. @default false */
  lowPriority?: boolean;
}

/** Runs `openclaw <args>` of the env's host version on Node 24 with the isolated env. */
export function runOpenclaw(env: HostEnv, args: string[], options: RunOpenclawOptions = {}): Promise<CliResult> {
  return runNode(env, env.host.entry, args, options);
}

/**
 * Runs the plugin's standalone CLI (`context-ledger <args>`, the built `dist/src/cli/main.js` that doctor's hint
 * names) with the isolated env: the same commands as `openclaw context-ledger <args>` without booting the host.
 */
export function runLedgerCli(env: HostEnv, args: string[], options: RunOpenclawOptions = {}): Promise<CliResult> {
  return runNode(env, LEDGER_CLI, args, options);
}

const LEDGER_CLI = path.join(REPO_ROOT, "dist", "src", "cli", "main.js");

async function runNode(env: HostEnv, script: string, args: string[], options: RunOpenclawOptions): Promise<CliResult> {
  const started = Date.now();
  const argv = [NODE_BINARY, script, ...args];
  const [command = NODE_BINARY, ...rest] = options.lowPriority ? lowPriority(argv) : argv;
  const child = spawnGroup(command, rest, { env: env.env, cwd: env.root });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) void stopGroup(child.pid);
  }, options.timeoutMs ?? 300_000);
  const code = await new Promise<number | null>((resolve) => {
    child.once("error", () => resolve(null));
    child.once("close", (c) => resolve(c));
  });
  clearTimeout(timer);
  return { args, code, stdout, stderr, ms: Date.now() - started, timedOut };
}

/** Like {@link runOpenclaw} but throws with the output when the exit code is not 0. */
export async function runOpenclawOk(
  env: HostEnv,
  args: string[],
  options: RunOpenclawOptions = {},
): Promise<CliResult> {
  const result = await runOpenclaw(env, args, options);
  if (result.code !== 0) {
    throw new Error(
      `Expected \`openclaw ${args.join(" ")}\` to exit 0, got ${String(result.code)}${result.timedOut ? " (timed out)" : ""}\n` +
        `--- stdout ---\n${result.stdout.slice(-4000)}\n--- stderr ---\n${result.stderr.slice(-4000)}`,
    );
  }
  return result;
}

/**
 * Extracts the last top-level JSON object or array from CLI output that may carry
 * log lines around it (2026.4.24 prints `--json` output on stderr, 2026.9.6 on stdout).
 */
export function extractJson(text: string): unknown {
  const lines = text.split("\n");
  const starts: number[] = [];
  const ends: number[] = [];
  lines.forEach((line, i) => {
    if (/^[{[]/.test(line)) starts.push(i);
    if (/[}\]]\s*$/.test(line)) ends.push(i);
  });
  // Earliest start with the latest end first: the outermost JSON block wins over nested lines.
  for (const start of starts) {
    for (const end of ends.filter((e) => e >= start).reverse()) {
      try {
        return JSON.parse(lines.slice(start, end + 1).join("\n"));
      } catch {
        // not this span
      }
    }
  }
  return undefined;
}

/** Options for {@link agentLocal}. */
export interface AgentLocalOptions {
  sessionId: string;
  message: string;
  /** @default 300000 */
  timeoutMs?: number;
}

/** Result of one embedded turn. */
export interface AgentLocalResult extends CliResult {
  /** The `--json` payload (from stdout on 9.6, stderr on 4.24). */
  json: unknown;
}

/** One embedded turn: `openclaw agent --local --session-id <id> -m <text> --json`. */
export async function agentLocal(env: HostEnv, options: AgentLocalOptions): Promise<AgentLocalResult> {
  const args = ["agent", "--local", "--session-id", options.sessionId, "-m", options.message, "--json"];
  const result = await runOpenclawOk(env, args, { timeoutMs: options.timeoutMs ?? 300_000 });
  const json =
    extractJson(env.host.version === "2026.4.24" ? result.stderr : result.stdout) ??
    extractJson(result.stdout + result.stderr);
  return { ...result, json };
}

/** Engine ids a `plugins inspect --json` answer reports (both hosts' shapes). */
export function inspectedContextEngineIds(json: unknown): string[] {
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== "object") return;
    const obj = node as Record<string, unknown>;
    if (Array.isArray(obj.contextEngineIds)) for (const id of obj.contextEngineIds) ids.add(String(id));
    if (obj.kind === "context-engine" && Array.isArray(obj.ids)) for (const id of obj.ids) ids.add(String(id));
    Object.values(obj).forEach(walk);
  };
  walk(json);
  return [...ids];
}
