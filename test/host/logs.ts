import { promises as fsp } from "node:fs";
import path from "node:path";
import type { HostEnv } from "./host-env.js";

/** The host's reply when it resets a session after failed overflow recovery. */
export const RESET_REPLY = "I've reset our conversation";

/**
 * Patterns of the host log lines the suite asserts on. Each must match the wording of
 * every host line it is counted on: `log-wording.ts` pairs each with the literal text
 * of the host's source on each line (checked in every line file), so a zero count
 * cannot pass because the host reworded the line.
 */
export const HOST_LOG_PATTERNS = {
  // 5.28+ also (8.2+ only) word it "pre-prompt check sessionKey=".
  precheck: /\[context-overflow-precheck\] (?:pre-prompt check )?sessionKey=/g,
  // 9.6 words the first part by cause ("predicted context pressure" on preflight).
  overflowDetected: /(?:context overflow|predicted context pressure) detected \(attempt \d+\/\d+\)/g,
  compactionFailed: /Auto-compaction failed/g,
  sessionRestarted: /Restarting session \S+ -> \S+/g,
  compactionSucceeded: /auto-compaction succeeded/g,
  // `Context engine "<id>" degraded to "<fallback>" for this logical turn` (8.2+).
  degradedToLegacy: /Context engine "[^"]+" degraded to "[^"]+"/g,
  resetReply: /I've reset our conversation/g,
  // `[context-engine] Context engine "<id>" failed during <op>: ...; quarantining it for this process ...` (5.28+).
  quarantined: /quarantining it for this process/g,
  // A context-engine method that threw (every line; 4.24 has no quarantine and fails the turn instead).
  engineFailed:
    /context engine (?:assemble|afterTurn|bootstrap|ingest|maintain \([^)]*\)) failed|\[context-engine\] .*falling back to default engine/g,
} as const;

/** Count of each {@link HOST_LOG_PATTERNS} entry. */
export type HostLogSignals = Record<keyof typeof HOST_LOG_PATTERNS, number>;

async function readIfExists(file: string, fromByte = 0): Promise<string> {
  try {
    if (fromByte <= 0) return await fsp.readFile(file, "utf8");
    const handle = await fsp.open(file, "r");
    try {
      const { size } = await handle.stat();
      if (size <= fromByte) return "";
      const buffer = Buffer.alloc(size - fromByte);
      await handle.read(buffer, 0, buffer.length, fromByte);
      return buffer.toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return "";
  }
}

async function sizeOf(file: string): Promise<number> {
  return (await fsp.stat(file).catch(() => undefined))?.size ?? 0;
}

/**
 * Where the env's logs end now: pass it to {@link readHostLog} / {@link readPluginEvents} to read only what follows.
 */
export interface LogMark {
  gatewayOut: number;
  hostLog: number;
  events: number;
}

/** The current end of the env's gateway output, host log and plugin events. */
export async function markLogs(env: HostEnv): Promise<LogMark> {
  const [gatewayOut, hostLog, events] = await Promise.all([
    sizeOf(path.join(env.root, "logs", "gateway.out.log")),
    sizeOf(env.hostLogPath),
    sizeOf(env.eventLogPath),
  ]);
  return { gatewayOut, hostLog, events };
}

/**
 * The host log of one isolated env: the gateway's console output (per process; the
 * only per-env log on 2026.4.24, whose packaged build ignores `logging.file` and writes
 * to the shared `/tmp/openclaw/openclaw-<date>.log`) plus the `logging.file` that
 * 2026.9.6 honours. Pass CLI output (`agent --local` stdout/stderr) as `extra`.
 */
export async function readHostLog(env: HostEnv, extra: string[] = [], since?: LogMark): Promise<string> {
  const parts = await Promise.all([
    readIfExists(path.join(env.root, "logs", "gateway.out.log"), since?.gatewayOut),
    readIfExists(env.hostLogPath, since?.hostLog),
  ]);
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

/** The engine plugin's events.jsonl (context-ledger or the test engine), from `since` on; [] when absent. */
export async function readPluginEvents(env: HostEnv, since?: LogMark): Promise<PluginEvent[]> {
  const text = await readIfExists(env.eventLogPath, since?.events);
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
  let agents: string[];
  try {
    agents = await fsp.readdir(agentsDir);
  } catch {
    return 0;
  }
  for (const agent of agents) {
    const dir = path.join(agentsDir, agent, "sessions");
    let files: string[];
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
