/**
 * One maintain() call: the session's debt paid down through the host's rewrite, then what the host line needs besides
 * (the load 2026.4.24 sizes itself, paid down after a turn; the JSONL file bounded), and the debt it leaves recorded.
 */
import type { AgentSettings } from "../config/schema.js";
import {
  asParams,
  locateTranscript,
  type HostContext,
  type HostParams,
  type SessionIdentity,
} from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { payDownHostLoad, type HostLoadDeps, type HostLoadResult } from "./host-load.js";
import { boundTranscriptFile, type TranscriptBoundDeps } from "./jsonl-reclaim.js";
import { payDownDebt, type PaydownDeps, type PaydownResult } from "./paydown.js";
import { recordDebtAfterPaydown, type DebtAfterDeps } from "./debt-after.js";
import { locateSqliteTranscript, type SqliteTranscriptLocator } from "./transcript-sqlite.js";

/** What one maintain() call uses: the paydown's, the host load's and the file bound's services, and settings. */
export type MaintainDeps = PaydownDeps &
  HostLoadDeps &
  TranscriptBoundDeps &
  DebtAfterDeps &
  Pick<LedgerServices, "settings">;

/** One maintain() call: its params and session, and whether a turn ended since the last one (taken once). */
export interface MaintainCall {
  params: HostParams;
  identity: SessionIdentity;
  /** True, once, when this session's afterTurn ran since its last maintain(). */
  takeTurnEnded: () => boolean;
}

/** What maintain() answers the host, and the fields of its event. */
export interface MaintainOutcome {
  result: PaydownResult;
  event: Record<string, unknown>;
}

/** Pays the session's transcript down, then the host's load and the file's size where the line needs it. */
export async function maintainSession(
  deps: MaintainDeps,
  host: Pick<HostContext, "semantics" | "agentDir">,
  call: MaintainCall,
): Promise<MaintainOutcome> {
  const { params, identity } = call;
  const settings = deps.settings(identity.agentId);
  const sqlite = sqliteTranscriptOf(host, params, identity);
  const result = await payDownDebt(deps, settings, {
    identity,
    sessionFile: params.sessionFile,
    runtimeContext: params.runtimeContext,
    abortSignal: params.abortSignal instanceof AbortSignal ? params.abortSignal : undefined,
    ...(sqlite ? { sqlite } : {}),
  });
  const hostLoad = await payDownLoadAfterTurn(deps, settings, host, call);
  await recordDebtAfterPaydown(deps, { identity, sessionFile: params.sessionFile, ...(sqlite ? { sqlite } : {}) });
  const reclaim = await boundTranscriptFile(deps, settings, {
    identity,
    sessionFile: params.sessionFile,
    messagesAtAnySize: host.semantics.reclaimsMessagesAtAnySize,
  });
  return { result, event: { ...result, ...(hostLoad ? { hostLoad } : {}), ...(reclaim ? { reclaim } : {}) } };
}

/** The session's SQLite transcript where the line keeps one and lets maintain() rewrite it. */
function sqliteTranscriptOf(
  host: Pick<HostContext, "semantics" | "agentDir">,
  params: HostParams,
  identity: SessionIdentity,
): SqliteTranscriptLocator | undefined {
  if (host.semantics.transcriptStore !== "sqlite" || !host.semantics.sqliteRewrite) return undefined;
  const target = asParams(params.sessionTarget ?? asParams(params.runtimeContext).sessionTarget);
  return locateSqliteTranscript({
    sessionId: typeof target.sessionId === "string" ? target.sessionId : identity.sessionId,
    storePath: target.storePath,
    agentDir: host.agentDir,
    agentId: identity.agentId,
    stateDir: process.env.OPENCLAW_STATE_DIR,
  });
}

/**
 * Where the host sizes the raw transcript it loads ({@link HostContext.semantics} `rawPrecheck`): after a turn, that
 * load paid down. Not before a run: the host's session manager is open then (see `payDownHostLoad`).
 */
async function payDownLoadAfterTurn(
  deps: HostLoadDeps,
  settings: AgentSettings,
  host: Pick<HostContext, "semantics">,
  call: MaintainCall,
): Promise<HostLoadResult | undefined> {
  const postTurn = call.takeTurnEnded();
  const file = locateTranscript(call.params.sessionFile);
  if (!host.semantics.rawPrecheck || !postTurn || file.kind !== "jsonl") return undefined;
  if (!settings.enabled || !settings.maintenance.enabled) return undefined;
  return payDownHostLoad(deps, settings, { identity: call.identity, file: file.file });
}
