import { promises as fsp } from "node:fs";
import path from "node:path";
import type { HostEnv } from "./host-env.js";

/** The host's reply when it resets a session after failed overflow recovery. */
export const RESET_REPLY = "I've reset our conversation";

/** Patterns of the host log lines the suite asserts on. */
export const HOST_LOG_PATTERNS = {
  precheck: /\[context-overflow-precheck\] sessionKey=/g,
  overflowDetected: /context overflow detected \(attempt \d+\/\d+\)/g,
  compactionFailed: /Auto-compaction failed/g,
  sessionRestarted: /Restarting session \S+ -> \S+/g,
  compactionSucceeded: /auto-compaction succeeded/g,
  degradedToLegacy: /degraded to legacy/g,
  resetReply: /I've reset our conversation/g,
  quarantined: /quarantin/gi,
} as const;

/** Count of each {@link HOST_LOG_PATTERNS} entry. */
export type HostLogSignals = Record<keyof typeof HOST_LOG_PATTERNS, number>;

async function readIfExists(file: string): Promise<string> {
  try {
    return await fsp.readFile(file, "utf8");
  } catch {
    return "";
  }
}

/**
 * The host log of one isolated env: the gateway's console output (per process; the
 * only per-env log on 2026.4.24, whose packaged build ignores `logging.file` and writes
 * to the shared `/tmp/openclaw/openclaw-<date>.log`) plus the `logging.file` that
 * 2026.9.6 honours. Pass CLI output (`agent --local` stdout/stderr) as `extra`.
 */
export async function readHostLog(env: HostEnv, extra: string[] = []): Promise<string> {
  const parts = await Promise.all([readIfExists(path.join(env.root, "logs", "gateway.out.log")), readIfExists(env.hostLogPath)]);
  return [...parts, ...extra].join("\n");
}

/** Counts the signals of {@link HOST_LOG_PATTERNS} in log text. */
export function countHostLogSignals(text: string): HostLogSignals {
  const out = {} as HostLogSignals;
  for (const [key, pattern] of Object.entries(HOST_LOG_PATTERNS) as [keyof HostLogSignals, RegExp][]) {
    out[key] = text.match(pattern)?.length ?? 0;
  }
  return out;
}

/** Log lines that match `pattern`, for failure messages and reports. */
export function grepLines(text: string, pattern: RegExp, max = 20): string[] {
  return text
    .split("\n")
    .filter((line) => pattern.test(line))
    .slice(0, max);
}

/** One line of the engine plugin's events.jsonl. */
export interface PluginEvent {
  ts: string;
  op: string;
  [field: string]: unknown;
}

/** The engine plugin's events.jsonl (context-ledger or the test engine); [] when absent. */
export async function readPluginEvents(env: HostEnv): Promise<PluginEvent[]> {
  const text = await readIfExists(env.eventLogPath);
  const events: PluginEvent[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line) as PluginEvent);
    } catch {
      // A torn last line while the host still writes: skip it.
    }
  }
  return events;
}

/** How many times each op occurs. */
export function countOps(events: readonly PluginEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events) counts[e.op] = (counts[e.op] ?? 0) + 1;
  return counts;
}

/** The ops in order with consecutive repeats collapsed (`assemble×3`), for reports. */
export function lifecycleSummary(events: readonly PluginEvent[]): string {
  const out: string[] = [];
  let prev = "";
  let n = 0;
  for (const e of [...events.map((x) => x.op), ""]) {
    if (e === prev) {
      n++;
      continue;
    }
    if (prev) out.push(n > 1 ? `${prev}×${n}` : prev);
    prev = e;
    n = 1;
  }
  return out.join(" ");
}

/** One `[context-ledger] maintenance-debt ...` line, parsed. */
export interface DebtLine {
  session: string;
  raw: number;
  assembled: number;
  budget: number;
  debt: number;
  reducible: number;
}

/** Parses the maintenance-debt lines the plugin logs through the host logger. */
export function parseDebtLines(text: string): DebtLine[] {
  const out: DebtLine[] = [];
  const re = /\[context-ledger\] maintenance-debt (.*)/g;
  for (const match of text.matchAll(re)) {
    const fields = Object.fromEntries(
      [...(match[1] ?? "").matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1] ?? "", m[2] ?? ""]),
    );
    out.push({
      session: fields.session ?? "",
      raw: Number(fields.raw),
      assembled: Number(fields.assembled),
      budget: Number(fields.budget),
      debt: Number(fields.debt),
      reducible: Number(fields.reducible),
    });
  }
  return out;
}

/**
 * How many times the reset reply ("I've reset our conversation") was stored in the
 * JSONL transcripts under the env's state (2026.4.24; 2026.9.6 stores transcripts in
 * SQLite, read those with `chat.history` instead).
 */
export async function countResetRepliesInTranscripts(env: HostEnv): Promise<number> {
  const agentsDir = path.join(env.stateDir, "agents");
  let count = 0;
  let agents: string[] = [];
  try {
    agents = await fsp.readdir(agentsDir);
  } catch {
    return 0;
  }
  for (const agent of agents) {
    const dir = path.join(agentsDir, agent, "sessions");
    let files: string[] = [];
    try {
      files = await fsp.readdir(dir);
    } catch {
      continue;
    }
    for (const file of files) {
      if (!file.endsWith(".jsonl") || file.includes(".trajectory")) continue;
      count += (await readIfExists(path.join(dir, file))).split(RESET_REPLY).length - 1;
    }
  }
  return count;
}
