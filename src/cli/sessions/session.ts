import { promises as fsp } from "node:fs";
import { isNotFound } from "../../errors.js";
import path from "node:path";
import { resolveAgentSettings } from "../../config/parse-config.js";
import { linesWithTranscriptStore } from "../../host/host-lines.js";
import { isSessionTranscriptName } from "../../host/transcript-names.js";
import { openAgentStore } from "../core/agent-store.js";
import { COMMON_OPTIONS, intFlag } from "../core/args.js";
import { runCommand, runGroup } from "../core/command.js";
import { CliFailure, EXIT } from "../core/cli-failure.js";
import { formatBytes, formatCount, formatTable } from "../core/format.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { DEFAULT_MIN_CHARS } from "./clean/clean-jsonl.js";
import { cleanSessionFile, type CleanFileResult } from "./clean/clean-session-file.js";
import { loadOperatorContext } from "../core/operator-context.js";
import { createProgress } from "../core/progress.js";
import { runBackupsCommand } from "./session-backups.js";

/** Schema tag of `session clean --json`. */
export const SESSION_CLEAN_SCHEMA = "context-ledger.session.clean.v1";

/** The `session clean --json` document. */
export interface SessionCleanReport {
  schema: typeof SESSION_CLEAN_SCHEMA;
  agentId: string;
  dryRun: boolean;
  sessionsDir: string;
  /** Set when the agent's transcripts live in SQLite (2026.9.x). */
  sqlite: string | null;
  sessions: CleanFileResult[];
  totals: { sessions: number; rewrittenEntries: number; payloads: number; bytesFreed: number };
}

const SPEC = {
  ...COMMON_OPTIONS,
  "dry-run": { type: "boolean" },
  "keep-last": { type: "string" },
  tools: { type: "string" },
  all: { type: "boolean" },
  session: { type: "string" },
  "min-chars": { type: "string" },
  force: { type: "boolean" },
} as const;

const USAGE = `Usage: {prog} session clean (--all | --session FILE) [--dry-run] [--keep-last N] [--tools a,b]
         [--min-chars N] [--force] [--agent ID] [--openclaw-state DIR] [--state-dir DIR] [--json]
Replaces tool-result payloads (text and details.aggregated) in JSONL sessions (hosts ${linesWithTranscriptStore("jsonl")}) with
handle stubs, after stashing and verifying each in the agent's artifact store; keeps <file>.bak-<timestamp>
(list or remove those with \`{prog} session backups [--prune]\`). ${linesWithTranscriptStore("sqlite")} keep transcripts in SQLite: nothing to clean.
Exit codes: 0 ok, 1 usage error, 2 no session file, 3 corrupt artifact, 5 refused or failed.
`;

const GROUP_USAGE = `Usage: {prog} session <command> [options]
  clean (--all | --session FILE) [--dry-run] ...   move tool-output payloads of JSONL sessions into the store
  backups [--prune] [--older-than 7d]              list (or remove) the .bak-* files clean leaves beside sessions
Run \`{prog} session <command> --help\` for one command's options.
`;

/** `context-ledger session clean | backups`. */
export async function runSessionCommand(argv: string[], io: CliIo): Promise<number> {
  return runGroup(argv, io, {
    name: "session",
    usage: GROUP_USAGE,
    commands: { clean: runCleanCommand, backups: runBackupsCommand },
  });
}

/** `context-ledger session clean`: lossless paydown of bloated JSONL session files. */
async function runCleanCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "session clean", options: SPEC, usage: USAGE }, async (args, json) => {
    const keepLast = intFlag(args, "keep-last", 0, 1_000_000) ?? 0;
    const minChars = intFlag(args, "min-chars", 0, Number.MAX_SAFE_INTEGER) ?? DEFAULT_MIN_CHARS;
    if (!args.flags.all === !args.flags.session)
      throw new CliFailure(
        "input_invalid",
        `Expected exactly one of --all or --session FILE, got ${args.flags.all ? "both" : "neither"}`,
        EXIT.usage,
      );
    return clean({ ...args.flags, json }, keepLast, minChars, io);
  });
}

async function clean(
  values: Record<string, string | true | boolean>,
  keepLast: number,
  minChars: number,
  io: CliIo,
): Promise<number> {
  const str = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  const ctx = await loadOperatorContext({
    stateDir: str("state-dir"),
    openclawState: str("openclaw-state"),
    env: io.env,
  });
  const agentId = str("agent") ?? agentOfSessionPath(str("session")) ?? "main";
  const agentDir = path.join(ctx.openclawState, "agents", agentId);
  const sessionsDir = path.join(agentDir, "sessions");
  const sqliteFile = path.join(agentDir, "agent", "openclaw-agent.sqlite");
  const sqlite = (await fsp.stat(sqliteFile).catch(() => undefined)) ? sqliteFile : null;
  const files = values.session
    ? [resolveSessionFile(String(values.session), sessionsDir)]
    : await listJsonlSessions(sessionsDir);
  const dryRun = values["dry-run"] === true;
  const report: SessionCleanReport = {
    schema: SESSION_CLEAN_SCHEMA,
    agentId,
    dryRun,
    sessionsDir,
    sqlite,
    sessions: [],
    totals: { sessions: 0, rewrittenEntries: 0, payloads: 0, bytesFreed: 0 },
  };
  const sqliteNote = `agent \`${agentId}\` keeps its transcripts in SQLite (${sqliteFile}, 2026.9.x host): there is no session file to clean, and context-ledger does not touch the database; maintain() cannot rewrite entries there yet (the host passes no entry ids). Prompts stay within budget regardless; the host's /compact or /new shrinks the transcript`;

  if (files.length === 0) {
    if (sqlite) {
      if (values.json) writeJson(io, { ...report, note: sqliteNote });
      else io.stdout.write(`${sqliteNote}\n`);
      return 0;
    }
    throw new CliFailure(
      "not_found",
      `no JSONL sessions in ${sessionsDir}`,
      EXIT.notFound,
      `${progName(io)} status --agent ${agentId}`,
    );
  }
  for (const f of files) {
    if (!isSessionTranscriptName(path.basename(f)))
      throw new CliFailure(
        "input_invalid",
        `${f} is not a session transcript (the host's run traces, checkpoints and archives are left as they are)`,
        EXIT.usage,
        `${progName(io)} session clean --all --dry-run --agent ${agentId}`,
      );
    if (!(await fsp.stat(f).catch(() => undefined))?.isFile()) {
      const known = await listJsonlSessions(sessionsDir);
      throw new CliFailure(
        "not_found",
        `no session file ${f}${
          sqlite
            ? ` (${sqliteNote})`
            : `; sessions of agent \`${agentId}\`: ${
                known
                  .slice(0, 5)
                  .map((k) => path.basename(k, ".jsonl"))
                  .join(", ") || "none"
              }`
        }`,
        EXIT.notFound,
        `${progName(io)} session clean --all --dry-run --agent ${agentId}`,
      );
    }
  }

  const settings = resolveAgentSettings(ctx.config, agentId);
  // The configured store: the stubs written below cite outputs that must reach a bucket when that is the backend.
  const opened = openAgentStore({
    config: ctx.config,
    ledgerRoot: ctx.ledgerRoot,
    agentId,
    env: io.env,
    maxStoreBytes: settings.limits.maxStoreBytes,
  });
  const store = opened.store;
  const tools =
    typeof values.tools === "string"
      ? new Set(
          values.tools
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        )
      : undefined;
  const progress = createProgress(io.stderr);
  for (const [n, file] of files.entries()) {
    const label = `${dryRun ? "planning" : "cleaning"} ${path.basename(file)} (${n + 1}/${files.length})`;
    const result = await cleanSessionFile({
      file,
      agentId,
      store,
      dryRun,
      force: values.force === true,
      keepLast,
      minChars,
      ...(tools ? { tools } : {}),
      settings,
      onEntry: (done, total) => progress.update(label, done, total),
    });
    progress.update(`${dryRun ? "planned" : "cleaned"} sessions`, n + 1, files.length);
    report.sessions.push(result);
    if (result.status === "planned" || result.status === "cleaned") {
      report.totals.sessions++;
      report.totals.rewrittenEntries += result.rewrittenEntries;
      report.totals.payloads += result.payloads.length;
      report.totals.bytesFreed += result.bytesFreed;
    }
  }
  progress.end();
  // Uploaded before exit; a failed upload stays in the spool, which the gateway uploads from its start.
  await opened.finish();
  if (values.json) writeJson(io, report);
  else io.stdout.write(renderClean(report, progName(io)));
  if (sqlite && !values.json) io.stdout.write(`note: ${sqliteNote}\n`);
  if (report.sessions.some((s) => s.failure === "corrupt")) return 3;
  return report.sessions.some((s) => s.status === "refused" || s.status === "failed") ? 5 : 0;
}

/** Human rendering: one row per session file, then totals and failures. */
export function renderClean(report: SessionCleanReport, prog = "context-ledger"): string {
  const rows = report.sessions.map((s) => [
    path.basename(s.file),
    s.status,
    formatCount(s.entries),
    formatCount(s.rewrittenEntries),
    formatCount(s.payloads.length),
    formatBytes(s.bytesBefore),
    formatBytes(s.bytesAfter),
    formatBytes(s.bytesFreed),
  ]);
  let out = formatTable(["SESSION", "STATUS", "ENTRIES", "REWRITTEN", "PAYLOADS", "BEFORE", "AFTER", "FREED"], rows);
  const t = report.totals;
  const backups = report.sessions.filter((s) => s.backup);
  const backupBytes = backups.reduce((n, s) => n + s.bytesBefore, 0);
  out += `\n${report.dryRun ? "Would shrink" : "Shrank"} the session file(s) by ${formatBytes(t.bytesFreed)} (${formatCount(t.bytesFreed)} bytes) in ${t.sessions} session(s): ${t.payloads} payload(s) ${report.dryRun ? "would move" : "moved"} to the artifact store.\n`;
  if (report.dryRun && t.sessions > 0)
    out += `A real run keeps a backup of each original (${formatBytes(report.sessions.filter((s) => s.status === "planned").reduce((n, s) => n + s.bytesBefore, 0))}) until you remove it.\n`;
  for (const s of report.sessions) {
    if (s.reason) out += `  ! ${path.basename(s.file)}: ${s.status}: ${s.reason}\n`;
    if (s.backup) out += `  backup: ${s.backup}\n`;
  }
  if (backups.length > 0)
    out += `Disk is freed only once the backups go: ${formatBytes(backupBytes)} in ${backups.length} backup(s); check the session, then \`${prog} session backups --prune\`.\n`;
  if (report.dryRun) out += "Dry run: nothing was written. Run again without --dry-run to clean.\n";
  return out;
}

/**
 * The agent id of a host session path `.../agents/<agent>/sessions/<file>.jsonl`, so its payloads go to that agent's
 * store.
 */
function agentOfSessionPath(arg: string | undefined): string | undefined {
  if (!arg || !(arg.includes("/") || arg.includes(path.sep))) return undefined;
  const parts = path.resolve(arg).split(path.sep);
  const i = parts.length - 3;
  return i > 0 && parts[i - 1] === "agents" && parts[i + 1] === "sessions" ? parts[i] : undefined;
}

function resolveSessionFile(arg: string, sessionsDir: string): string {
  if (arg.includes("/") || arg.includes(path.sep)) return path.resolve(arg);
  return path.join(sessionsDir, arg.endsWith(".jsonl") ? arg : `${arg}.jsonl`);
}

async function listJsonlSessions(dir: string): Promise<string[]> {
  try {
    const names = await fsp.readdir(dir);
    return names
      .filter(isSessionTranscriptName)
      .sort()
      .map((n) => path.join(dir, n));
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}
