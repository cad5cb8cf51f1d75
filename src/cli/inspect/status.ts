import { uploadLocation } from "../../artifacts/index.js";
import { resolveAgentSettings } from "../../config/parse-config.js";
import type { LedgerConfig } from "../../config/schema.js";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { isInternalSessionKey } from "../../host/normalize.js";
import { COMMON_OPTIONS, stringFlag } from "../core/args.js";
import { runCommand } from "../core/command.js";
import { CliFailure, EXIT } from "../core/cli-failure.js";
import { formatBytes, formatCount, formatTable, shortHandle } from "../core/format.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { listLedgerAgents, listLedgerSessions } from "../core/ledger-scan.js";
import { operatorContextOf } from "../core/operator-context.js";
import { readAgentStore } from "../core/agent-store.js";
import { debtTrend, inTurnAssembles, trendLabel } from "./status-debt-trend.js";
import { STATUS_SCHEMA, type AgentStatus, type StatusReport } from "./status-report.js";
import { renderSessionDetail } from "./status-detail.js";
import { describeTally, emptyTally, sessionFigures, tallyStore } from "./session-figures.js";

/** Share of `limits.maxStoreBytes` from which the store counts as near its limit. */
export const STORE_NEAR_LIMIT_RATIO = 0.9;

export { STATUS_SCHEMA, type AgentStatus, type SessionStatus, type StatusReport } from "./status-report.js";

/**
 * What an operator can do about growing debt on this host. On JSONL hosts
 * (2026.4-2026.7) maintain() rewrites oversized entries and `session clean`
 * works offline; on SQLite hosts (2026.8-2026.9) `session clean` has no file to clean.
 */
export function debtAdvice(sqliteHost: boolean): string {
  return sqliteHost
    ? "On a SQLite host `session clean` does not touch the transcript; maintain() pays tool outputs down on 2026.9.x (not on 2026.8.x), the answers stay; the host's own compaction (/compact) or a new session (/new) resets it"
    : "maintain() pays it down on the next turns; offline, run `context-ledger session clean --all --dry-run`";
}

const SPEC = { ...COMMON_OPTIONS, session: { type: "string" }, all: { type: "boolean" } } as const;

const USAGE = `Usage: {prog} status [--agent ID] [--session KEY] [--all] [--json] [--state-dir DIR] [--openclaw-state DIR]
Budget, assembled tokens, raw history, maintenance debt and its trend, per session.
  --session KEY   one session in detail (recent turns, debt readings, checkpoints)
  --all           include the host's internal sessions (agent:<id>:internal-session-effects:…), hidden by default
Exit codes: 0 ok, 1 usage error, 2 unknown agent or session, 5 other failure.
`;

/** `context-ledger status`: budget, debt, trend, artifacts and checkpoints per session. */
export async function runStatusCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "status", options: SPEC, usage: USAGE }, async (args, json) => {
    const ctx = await operatorContextOf(args, io.env);
    const agentFilter = stringFlag(args, "agent");
    const sessionFilter = stringFlag(args, "session");
    const report = await buildStatusReport(ctx.ledgerRoot, ctx.config, {
      agent: agentFilter,
      session: sessionFilter,
      openclawState: ctx.openclawState,
      includeInternal: args.flags.all === true || sessionFilter !== undefined,
      env: io.env,
    });
    const prog = progName(io);
    if (agentFilter && report.agents.length === 0 && !sessionFilter) {
      const known = await listLedgerAgents(ctx.ledgerRoot);
      throw new CliFailure(
        "not_found",
        `no state for agent \`${agentFilter}\` under ${ctx.ledgerRoot}; known agents: ${known.join(", ") || "none"}`,
        EXIT.notFound,
        `${prog} status`,
      );
    }
    if (sessionFilter && report.agents.every((a) => a.sessions.length === 0)) {
      const known = (
        await buildStatusReport(ctx.ledgerRoot, ctx.config, {
          agent: agentFilter,
          includeInternal: false,
          env: io.env,
        })
      ).agents.flatMap((a) => a.sessions.map((x) => x.sessionKey));
      const shown = known.slice(0, 10).join(", ");
      throw new CliFailure(
        "not_found",
        `no session \`${sessionFilter}\` under ${ctx.ledgerRoot}; known sessions: ${shown || "none"}${known.length > 10 ? `, … (${known.length} in all)` : ""}`,
        EXIT.notFound,
        `${prog} status --all`,
      );
    }
    if (ctx.configError)
      io.stderr.write(
        `${prog} status: plugin config invalid, limits shown are defaults (${ctx.configError.split("\n")[0]})\n`,
      );
    if (json) writeJson(io, report);
    else if (sessionFilter)
      io.stdout.write(report.agents.flatMap((a) => a.sessions.map((x) => renderSessionDetail(x, prog))).join("\n"));
    else io.stdout.write(renderStatus(report, prog));
    return 0;
  });
}

/** Options of {@link buildStatusReport}. */
export interface StatusOptions {
  /** The host's state dir: tells a SQLite-transcript host (2026.9.x) from a JSONL one for the debt hint. */
  openclawState?: string;
  /** Include the host's internal sessions. @default false */
  includeInternal?: boolean;
  /** Only this agent. */
  agent?: string;
  /** Only this session. */
  session?: string;
  /** Where the bucket's credentials are read from. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Builds the report for every agent (or one) and every session (or one). */
export async function buildStatusReport(
  root: string,
  config: LedgerConfig,
  options: StatusOptions = {},
): Promise<StatusReport> {
  const { agent: agentFilter, session: sessionFilter } = options;
  const report: StatusReport = { schema: STATUS_SCHEMA, root, agents: [], warnings: [], hiddenInternalSessions: 0 };
  const agentIds = await listLedgerAgents(root);
  // A disabled agent has no state of its own to list; asked for by name, it is shown as disabled, not unknown.
  if (
    agentFilter !== undefined &&
    !agentIds.includes(agentFilter) &&
    !resolveAgentSettings(config, agentFilter).enabled
  )
    agentIds.push(agentFilter);
  for (const agentId of agentIds) {
    if (agentFilter !== undefined && agentId !== agentFilter) continue;
    const settings = resolveAgentSettings(config, agentId);
    const limit = settings.limits.maxStoreBytes;
    // One pass over the metas: sizes and kinds together (stats() would list them again). With the bucket down the
    // listing holds the local copies alone; status never waits for uploads.
    const { tally, backlog } = await readAgentStore(
      { config, ledgerRoot: root, agentId, env: options.env ?? process.env },
      async (store) => ({ tally: await tallyStore(store), backlog: await store.pendingUploads?.() }),
    );
    const stats = tally.stats;
    const agent: AgentStatus = {
      agentId,
      enabled: settings.enabled,
      artifacts: {
        ...stats,
        maxStoreBytes: limit,
        usedRatio: limit > 0 ? stats.storedBytes / limit : 0,
        byKind: tally.all,
      },
      sessions: [],
    };
    const where = uploadLocation(settings.store);
    if (where && backlog) {
      agent.upload = {
        backend: where.backend,
        location: where.location,
        pendingObjects: backlog.objects,
        pendingBytes: backlog.bytes,
      };
      if (backlog.objects > 0)
        report.warnings.push({
          agentId,
          code: "upload_backlog",
          message: `${backlog.objects} objects (${formatBytes(backlog.bytes)}) wait in the local spool to upload to ${where.location} (cap ${formatBytes(settings.store.spoolBytes)}); they upload when the gateway runs and the bucket answers`,
        });
    }
    const sqlite = options.openclawState
      ? await fsp.stat(path.join(options.openclawState, "agents", agentId, "agent", "openclaw-agent.sqlite")).then(
          () => true,
          () => false,
        )
      : false;
    if (agent.artifacts.usedRatio >= STORE_NEAR_LIMIT_RATIO) {
      report.warnings.push({
        agentId,
        code: "store_near_limit",
        message: `artifact store at ${(agent.artifacts.usedRatio * 100).toFixed(0)}% of limits.maxStoreBytes (${formatBytes(stats.storedBytes)} of ${formatBytes(limit)}); run \`context-ledger artifact gc\` or raise the limit`,
      });
    }
    for (const s of await listLedgerSessions(root, agentId)) {
      if (sessionFilter !== undefined && s.sessionKey !== sessionFilter) continue;
      if (!options.includeInternal && isInternalSessionKey(s.sessionKey)) {
        report.hiddenInternalSessions++;
        continue;
      }
      const st = s.state;
      const last = st?.lastDebt ?? null;
      const figures = sessionFigures(st);
      const trend = debtTrend(st?.debtHistory ?? []);
      const cp = st?.checkpoints.at(-1) ?? null;
      agent.sessions.push({
        agentId,
        sessionKey: s.sessionKey,
        sessionId: st?.sessionId ?? null,
        turns: figures.userTurns,
        updatedAt: st?.updatedAt ?? null,
        promptBudget: last?.promptBudget ?? null,
        assembledTokens: last?.assembledTokens ?? null,
        hostInTurnAssembles: inTurnAssembles(last),
        rawHistoryTokens: last?.rawHistoryTokens ?? null,
        debtTokens: figures.debtAfterPaydown,
        debtBeforePaydownTokens: figures.debtBeforePaydown,
        reducibleChars: last?.reducibleChars ?? null,
        debtTrend: trend,
        compactions: figures.compactions,
        checkpoints: figures.checkpoints,
        stored: tally.bySession.get(s.sessionKey) ?? emptyTally(),
        lastCheckpoint: cp ? { handle: cp.handle, at: cp.at, coveredCount: cp.coveredCount } : null,
        recentTurns: (st?.recentTurns ?? [])
          .slice(-5)
          .map((t) => ({ seq: t.seq, at: t.at, messages: t.messages, tokens: t.tokens, handles: t.handles.length })),
        debtHistory: (st?.debtHistory ?? []).slice(-8),
        error: s.error ?? null,
      });
      if (s.error)
        report.warnings.push({
          agentId,
          sessionKey: s.sessionKey,
          code: "state_unreadable",
          message: `session state unreadable: ${s.error}`,
        });
      if (trend.warn) {
        report.warnings.push({
          agentId,
          sessionKey: s.sessionKey,
          code: "debt_growing",
          message: `maintenance debt grew for ${trend.growingStreak} readings in a row (now ${formatCount(figures.debtAfterPaydown)} tokens after the turn's paydown: raw ${formatCount(last?.rawHistoryTokens)} vs budget ${formatCount(last?.promptBudget)}; about ${formatCount(trend.reclaimableTokens)} of it tool output that can be offloaded); prompts are unaffected. ${debtAdvice(sqlite)}`,
        });
      }
    }
    if (sessionFilter !== undefined && agent.sessions.length === 0) continue;
    report.agents.push(agent);
  }
  return report;
}

/** What the table's figures mean, in the glossary's words. */
export const FIGURE_LEGEND =
  "TURNS: your messages · OFFLOADED: distinct tool outputs in the store (checkpoints and transcript parts apart) · COMPACTIONS: entries in the host's transcript · DEBT: after the turn's paydown (docs/glossary.md)";

/** Human rendering of a status report: one block per agent, an aligned table of sessions, then warnings. */
export function renderStatus(report: StatusReport, prog = "context-ledger"): string {
  if (report.agents.length === 0) return `No context-ledger state under ${report.root}\n`;
  let out = `${prog} status (${report.root})\n`;
  for (const agent of report.agents) {
    const a = agent.artifacts;
    out += `\nAgent ${agent.agentId}: ${describeTally(a.byKind)}; ${formatCount(a.count)} artifacts, ${formatBytes(a.bytes)} original, ${formatBytes(a.storedBytes)} stored (${(a.usedRatio * 100).toFixed(1)}% of ${formatBytes(a.maxStoreBytes)} limit)\n`;
    if (agent.upload)
      out += `  upload to ${agent.upload.location}: ${formatCount(agent.upload.pendingObjects)} objects (${formatBytes(agent.upload.pendingBytes)}) waiting in the local spool\n`;
    if (!agent.enabled)
      out += `  disabled: the plugin config turns context-ledger off for ${agent.agentId}; its turns pass through unchanged and nothing new is recorded\n`;
    if (agent.sessions.length === 0) {
      out += "  no sessions\n";
      continue;
    }
    const rows = agent.sessions.map((s) => [
      clipMiddle(s.sessionKey, 48),
      formatCount(s.turns),
      formatCount(s.stored.toolOutputs),
      formatCount(s.compactions),
      formatCount(s.promptBudget),
      formatCount(s.assembledTokens),
      formatCount(s.rawHistoryTokens),
      formatCount(s.debtTokens),
      trendLabel(s.debtTrend),
      s.lastCheckpoint ? shortHandle(s.lastCheckpoint.handle) : "-",
    ]);
    out += formatTable(
      [
        "SESSION",
        "TURNS",
        "OFFLOADED",
        "COMPACTIONS",
        "BUDGET",
        "ASSEMBLED",
        "RAW",
        "DEBT",
        "TREND",
        "LAST CHECKPOINT",
      ],
      rows,
    )
      .split("\n")
      .map((l) => (l ? `  ${l}` : l))
      .join("\n");
  }
  out += `\n${FIGURE_LEGEND}\n`;
  if (report.warnings.length > 0) {
    out += `\nWarnings:\n`;
    for (const w of report.warnings)
      out += `  ! ${w.agentId}${w.sessionKey ? `/${clipMiddle(w.sessionKey, 48)}` : ""}: ${w.message}\n`;
  }
  if (report.hiddenInternalSessions > 0)
    out += `\n${report.hiddenInternalSessions} host-internal session(s) hidden; \`${prog} status --all\` shows them.\n`;
  out += `Details of one session: \`${prog} status --session KEY\`; what the model saw: \`${prog} view --session KEY\`.\n`;
  return out;
}

/** Shortens a long key in the middle so table lines stay readable. */
function clipMiddle(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, Math.ceil(max / 2) - 1)}…${text.slice(text.length - Math.floor(max / 2))}`;
}
