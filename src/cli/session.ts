import { promises as fsp } from "node:fs";
import path from "node:path";
import { createArtifactStore } from "../artifacts/store.js";
import { resolveAgentSettings } from "../config/parse-config.js";
import { errorMessage } from "../errors.js";
import { artifactRoot } from "../state/paths.js";
import type { CliIo } from "./run-cli.js";
import { DEFAULT_MIN_CHARS } from "./ops/clean-jsonl.js";
import { cleanSessionFile, type CleanFileResult } from "./ops/clean-session-file.js";
import { COMMON_OPTIONS, intOption, parseCommandLine, stringOption } from "./ops/cli-options.js";
import { formatBytes, formatCount, formatTable } from "./ops/format.js";
import { loadOperatorContext } from "./ops/host-config.js";
import { createProgress } from "./ops/progress.js";

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

const USAGE = `Usage: context-ledger session clean (--all | --session FILE) [--dry-run] [--keep-last N] [--tools a,b]
         [--min-chars N] [--force] [--agent ID] [--openclaw-state DIR] [--state-dir DIR] [--json]
Replaces tool-result payloads (text and details.aggregated) in 2026.4.x JSONL sessions with handle stubs,
after stashing and verifying each in the agent's artifact store; keeps <file>.bak-<timestamp>.
`;

/** `context-ledger session clean`: lossless paydown of bloated JSONL session files. */
export async function runSessionCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "clean") {
    io.stderr.write(sub && sub !== "--help" && sub !== "-h" ? `context-ledger session: unknown subcommand \`${sub}\`\n${USAGE}` : USAGE);
    return sub === "--help" || sub === "-h" ? 0 : 1;
  }
  let values;
  let keepLast: number;
  let minChars: number;
  try {
    values = parseCommandLine(rest, SPEC, "context-ledger session clean").values;
    keepLast = intOption(values, "keep-last", 0);
    minChars = intOption(values, "min-chars", DEFAULT_MIN_CHARS);
    if (values.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (!values.all === !values.session) throw new Error("Expected exactly one of --all or --session FILE");
  } catch (err) {
    io.stderr.write(`context-ledger session clean: ${errorMessage(err)}\n${USAGE}`);
    return 1;
  }
  const ctx = await loadOperatorContext({ stateDir: stringOption(values, "state-dir"), openclawState: stringOption(values, "openclaw-state"), env: io.env });
  const agentId = stringOption(values, "agent") ?? agentOfSessionPath(stringOption(values, "session")) ?? "main";
  const agentDir = path.join(ctx.openclawState, "agents", agentId);
  const sessionsDir = path.join(agentDir, "sessions");
  const sqliteFile = path.join(agentDir, "agent", "openclaw-agent.sqlite");
  const sqlite = (await fsp.stat(sqliteFile).catch(() => undefined)) ? sqliteFile : null;
  const files = values.session ? [resolveSessionFile(String(values.session), sessionsDir)] : await listJsonlSessions(sessionsDir);
  const dryRun = values["dry-run"] === true;
  const report: SessionCleanReport = { schema: SESSION_CLEAN_SCHEMA, agentId, dryRun, sessionsDir, sqlite, sessions: [], totals: { sessions: 0, rewrittenEntries: 0, payloads: 0, bytesFreed: 0 } };
  const sqliteNote = `agent \`${agentId}\` keeps its transcripts in SQLite (${sqliteFile}, 2026.9.x host): context-ledger does not touch the database; cleaning goes through the engine's maintain() paydown, which rewrites oversized entries through the host on the next turns`;

  if (files.length === 0) {
    if (sqlite) {
      if (values.json) io.stdout.write(`${JSON.stringify({ ...report, note: sqliteNote }, null, 2)}\n`);
      else io.stdout.write(`${sqliteNote}\n`);
      return 0;
    }
    io.stderr.write(`context-ledger session clean: no JSONL sessions in ${sessionsDir}\n`);
    return 2;
  }
  for (const f of files) {
    if (!(await fsp.stat(f).catch(() => undefined))?.isFile()) {
      io.stderr.write(`context-ledger session clean: no session file ${f}${sqlite ? ` (${sqliteNote})` : ""}\n`);
      return 2;
    }
  }

  const settings = resolveAgentSettings(ctx.config, agentId);
  const store = createArtifactStore({ root: artifactRoot(ctx.ledgerRoot, agentId), maxStoreBytes: settings.limits.maxStoreBytes });
  const tools = typeof values.tools === "string" ? new Set(values.tools.split(",").map((t) => t.trim()).filter(Boolean)) : undefined;
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
  io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderClean(report));
  if (sqlite && !values.json) io.stdout.write(`note: ${sqliteNote}\n`);
  if (report.sessions.some((s) => s.failure === "corrupt")) return 3;
  return report.sessions.some((s) => s.status === "refused" || s.status === "failed") ? 5 : 0;
}

/** Human rendering: one row per session file, then totals and failures. */
export function renderClean(report: SessionCleanReport): string {
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
  out += `\n${report.dryRun ? "Would free" : "Freed"} ${formatBytes(t.bytesFreed)} (${formatCount(t.bytesFreed)} bytes) in ${t.sessions} session(s): ${t.payloads} payload(s) ${report.dryRun ? "would move" : "moved"} to the artifact store.\n`;
  for (const s of report.sessions) {
    if (s.reason) out += `  ! ${path.basename(s.file)}: ${s.status}: ${s.reason}\n`;
    if (s.backup) out += `  backup: ${s.backup}\n`;
  }
  if (report.dryRun) out += "Dry run: nothing was written. Run again without --dry-run to clean.\n";
  return out;
}

/** The agent id of a host session path `.../agents/<agent>/sessions/<file>.jsonl`, so its payloads go to that agent's store. */
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
    return names.filter((n) => n.endsWith(".jsonl") && !n.startsWith(".")).sort().map((n) => path.join(dir, n));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}
