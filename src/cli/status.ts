import { createArtifactStore } from "../artifacts/store.js";
import { resolveAgentSettings } from "../config/parse-config.js";
import { errorMessage } from "../errors.js";
import { artifactRoot } from "../state/paths.js";
import type { CliIo } from "./run-cli.js";
import { COMMON_OPTIONS, parseCommandLine, stringOption } from "./ops/cli-options.js";
import { debtTrend, type DebtTrend } from "./ops/debt-trend.js";
import { formatBytes, formatCount, formatTable, shortHandle } from "./ops/format.js";
import { loadOperatorContext } from "./ops/host-config.js";
import { listLedgerAgents, listLedgerSessions } from "./ops/ledger-scan.js";

/** Schema tag of `status --json`. */
export const STATUS_SCHEMA = "context-ledger.status.v1";
/** Share of `limits.maxStoreBytes` from which the store counts as near its limit. */
export const STORE_NEAR_LIMIT_RATIO = 0.9;

/** One session in the status report. */
export interface SessionStatus {
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  turns: number;
  updatedAt: string | null;
  promptBudget: number | null;
  assembledTokens: number | null;
  rawHistoryTokens: number | null;
  debtTokens: number | null;
  reducibleChars: number | null;
  debtTrend: DebtTrend;
  compactions: number;
  lastCheckpoint: { handle: string; at: string; coveredCount: number } | null;
  /** Why the session state could not be read, if it could not. */
  error: string | null;
}

/** One agent in the status report. */
export interface AgentStatus {
  agentId: string;
  artifacts: { count: number; bytes: number; storedBytes: number; maxStoreBytes: number; usedRatio: number };
  sessions: SessionStatus[];
}

/** The `status --json` document. */
export interface StatusReport {
  schema: typeof STATUS_SCHEMA;
  root: string;
  agents: AgentStatus[];
  warnings: { agentId: string; sessionKey?: string; code: "debt_growing" | "store_near_limit" | "state_unreadable"; message: string }[];
}

const SPEC = { ...COMMON_OPTIONS, session: { type: "string" } } as const;

const USAGE = "Usage: context-ledger status [--agent ID] [--session KEY] [--json] [--state-dir DIR] [--openclaw-state DIR]\n";

/** `context-ledger status`: budget, debt, trend, artifacts and checkpoints per session. */
export async function runStatusCommand(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv, SPEC, "context-ledger status");
  } catch (err) {
    io.stderr.write(`context-ledger status: ${errorMessage(err)}\n${USAGE}`);
    return 1;
  }
  const { values } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const ctx = await loadOperatorContext({ stateDir: stringOption(values, "state-dir"), openclawState: stringOption(values, "openclaw-state"), env: io.env });
  const agentFilter = stringOption(values, "agent");
  const sessionFilter = stringOption(values, "session");
  const report = await buildStatusReport(ctx.ledgerRoot, ctx.config, agentFilter, sessionFilter);
  if (agentFilter && report.agents.length === 0) {
    io.stderr.write(`context-ledger status: no state for agent \`${agentFilter}\` under ${ctx.ledgerRoot}\n`);
    return 2;
  }
  if (sessionFilter && report.agents.every((a) => a.sessions.length === 0)) {
    io.stderr.write(`context-ledger status: no session \`${sessionFilter}\` under ${ctx.ledgerRoot}\n`);
    return 2;
  }
  if (ctx.configError) io.stderr.write(`context-ledger status: plugin config invalid, limits shown are defaults (${ctx.configError.split("\n")[0]})\n`);
  io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderStatus(report));
  return 0;
}

/** Builds the report for every agent (or one) and every session (or one). */
export async function buildStatusReport(
  root: string,
  config: Parameters<typeof resolveAgentSettings>[0],
  agentFilter?: string,
  sessionFilter?: string,
): Promise<StatusReport> {
  const report: StatusReport = { schema: STATUS_SCHEMA, root, agents: [], warnings: [] };
  for (const agentId of await listLedgerAgents(root)) {
    if (agentFilter !== undefined && agentId !== agentFilter) continue;
    const limit = resolveAgentSettings(config, agentId).limits.maxStoreBytes;
    const stats = await createArtifactStore({ root: artifactRoot(root, agentId) }).stats();
    const agent: AgentStatus = {
      agentId,
      artifacts: { ...stats, maxStoreBytes: limit, usedRatio: limit > 0 ? stats.storedBytes / limit : 0 },
      sessions: [],
    };
    if (agent.artifacts.usedRatio >= STORE_NEAR_LIMIT_RATIO) {
      report.warnings.push({
        agentId,
        code: "store_near_limit",
        message: `artifact store at ${(agent.artifacts.usedRatio * 100).toFixed(0)}% of limits.maxStoreBytes (${formatBytes(stats.storedBytes)} of ${formatBytes(limit)}); run \`context-ledger artifact gc\` or raise the limit`,
      });
    }
    for (const s of await listLedgerSessions(root, agentId)) {
      if (sessionFilter !== undefined && s.sessionKey !== sessionFilter) continue;
      const st = s.state;
      const last = st?.lastDebt ?? null;
      const trend = debtTrend(st?.debtHistory ?? []);
      const cp = st?.checkpoints.at(-1) ?? null;
      agent.sessions.push({
        agentId,
        sessionKey: s.sessionKey,
        sessionId: st?.sessionId ?? null,
        turns: st?.turns ?? 0,
        updatedAt: st?.updatedAt ?? null,
        promptBudget: last?.promptBudget ?? null,
        assembledTokens: last?.assembledTokens ?? null,
        rawHistoryTokens: last?.rawHistoryTokens ?? null,
        debtTokens: last?.debtTokens ?? null,
        reducibleChars: last?.reducibleChars ?? null,
        debtTrend: trend,
        compactions: st?.compactions ?? 0,
        lastCheckpoint: cp ? { handle: cp.handle, at: cp.at, coveredCount: cp.coveredCount } : null,
        error: s.error ?? null,
      });
      if (s.error) report.warnings.push({ agentId, sessionKey: s.sessionKey, code: "state_unreadable", message: `session state unreadable: ${s.error}` });
      if (trend.warn) {
        report.warnings.push({
          agentId,
          sessionKey: s.sessionKey,
          code: "debt_growing",
          message: `maintenance debt grew for ${trend.growingStreak} readings in a row (now ${formatCount(last?.debtTokens)} tokens: raw ${formatCount(last?.rawHistoryTokens)} vs budget ${formatCount(last?.promptBudget)}); prompts are unaffected, maintain() pays it down on JSONL hosts or run \`context-ledger session clean\``,
        });
      }
    }
    if (sessionFilter !== undefined && agent.sessions.length === 0) continue;
    report.agents.push(agent);
  }
  return report;
}

/** Human rendering of a status report: one block per agent, an aligned table of sessions, then warnings. */
export function renderStatus(report: StatusReport): string {
  if (report.agents.length === 0) return `No context-ledger state under ${report.root}\n`;
  let out = `context-ledger status (${report.root})\n`;
  for (const agent of report.agents) {
    const a = agent.artifacts;
    out += `\nAgent ${agent.agentId}: ${formatCount(a.count)} artifacts, ${formatBytes(a.bytes)} original, ${formatBytes(a.storedBytes)} stored (${(a.usedRatio * 100).toFixed(1)}% of ${formatBytes(a.maxStoreBytes)} limit)\n`;
    if (agent.sessions.length === 0) {
      out += "  no sessions\n";
      continue;
    }
    const rows = agent.sessions.map((s) => [
      s.sessionKey,
      formatCount(s.turns),
      formatCount(s.promptBudget),
      formatCount(s.assembledTokens),
      formatCount(s.rawHistoryTokens),
      formatCount(s.debtTokens),
      s.debtTrend.direction === "growing" && s.debtTrend.growingStreak > 0 ? `growing x${s.debtTrend.growingStreak}` : s.debtTrend.direction,
      s.lastCheckpoint ? shortHandle(s.lastCheckpoint.handle) : "-",
    ]);
    out += formatTable(["SESSION", "TURNS", "BUDGET", "ASSEMBLED", "RAW", "DEBT", "TREND", "LAST CHECKPOINT"], rows)
      .split("\n")
      .map((l) => (l ? `  ${l}` : l))
      .join("\n");
  }
  if (report.warnings.length > 0) {
    out += `\nWarnings:\n`;
    for (const w of report.warnings) out += `  ! ${w.agentId}${w.sessionKey ? `/${w.sessionKey}` : ""}: ${w.message}\n`;
  }
  return out;
}
