import { assembleView } from "../assembly/assemble-view.js";
import { createAssemblyPorts } from "./assembly-ports.js";
import { passThroughView, safeFallbackView } from "../assembly/pass-through.js";
import {
  isInternalSessionKey,
  isManualCompaction,
  locateTranscript,
  normalizeFactoryContext,
  resolveSessionIdentity,
  type HostContext,
} from "../host/normalize.js";
import { hostPromptBudget } from "../host/host-budget.js";
import { fingerprintMessage, safeJson } from "../host/messages.js";
import { compactSession } from "../maintenance/compact.js";
import { boundTranscriptFile } from "../maintenance/jsonl-reclaim.js";
import { payDownDebt } from "../maintenance/paydown.js";
import { payDownHostLoad } from "../maintenance/host-load.js";
import { locateSqliteTranscript } from "../maintenance/transcript-sqlite.js";
import { forgetInternalSessions } from "../runtime/internal-sessions.js";
import type { LedgerServices } from "../runtime/services.js";
import { endSubagentContext, prepareSubagentContext } from "../subagents/subagent-context.js";
import { afterTurnKey, commitTurnMessages } from "../turns/commit-turn.js";
import { asHostResult, type LedgerAssembleResult } from "../host/host-types.js";
import { guard } from "./boundary.js";
import { ENGINE_INFO } from "../host/engine-info.js";
import { flushSummaryWrites } from "./view-summary.js";

type Params = Record<string, unknown>;
const asParams = (p: unknown): Params => (p && typeof p === "object" ? (p as Params) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
// Log context must never throw: a hostile `{"toString":1}` key would otherwise escape before the boundary.
const label = (v: unknown): string => (typeof v === "string" ? v : safeJson(v).slice(0, 80));

/**
 * Builds the engine object the host calls. Every method only normalises its
 * params through `host/`, delegates to one operation, and goes through the
 * boundary so that no exception reaches the host.
 */
export function createEngine(services: LedgerServices, factoryContext?: unknown, runtimeVersion?: string) {
  const host: HostContext = normalizeFactoryContext(factoryContext, runtimeVersion);
  // Host-internal one-shot sessions this instance served; their state goes at dispose.
  const internal = new Map<string, { agentId: string; sessionKey: string }>();
  const ports = createAssemblyPorts(services);
  // Sessions whose afterTurn ran and whose post-turn maintain has not yet: 2026.4.24 calls maintain() before a run
  // too, when its session manager is already open (see payDownHostLoad).
  const turnEnded = new Set<string>();
  const who = (p: Params) => {
    const id = resolveSessionIdentity(p, host);
    if (isInternalSessionKey(id.sessionKey))
      internal.set(`${id.agentId}\u0000${id.sessionKey}`, { agentId: id.agentId, sessionKey: id.sessionKey });
    return id;
  };
  const ctx = (op: string, p: Params) => {
    const id = who(p);
    return { agent: id.agentId, session: id.sessionKey, host: host.generation, op };
  };
  void services.events.write({
    op: "factory",
    host: host.generation,
    hostVersion: host.version ?? null,
    versionSource: host.versionSource,
    agentId: host.agentId ?? null,
  });

  return {
    info: ENGINE_INFO,

    async bootstrap(raw: unknown) {
      const p = asParams(raw);
      return guard(
        services,
        { op: "bootstrap", context: ctx("bootstrap", p) },
        async () => {
          const id = who(p);
          void services.events.write({
            op: "bootstrap",
            agentId: id.agentId,
            sessionKey: id.sessionKey,
            sessionId: id.sessionId,
          });
          return { bootstrapped: true, importedMessages: 0 } as {
            bootstrapped: boolean;
            importedMessages: number;
            reason?: string;
          };
        },
        () => ({ bootstrapped: false, importedMessages: 0, reason: "engine_error" }),
      );
    },

    async maintain(raw: unknown) {
      const p = asParams(raw);
      return guard(
        services,
        { op: "maintain", context: ctx("maintain", p) },
        async () => {
          const id = who(p);
          const target = asParams(p.sessionTarget ?? asParams(p.runtimeContext).sessionTarget);
          const sqlite =
            host.semantics.transcriptStore === "sqlite" && host.semantics.sqliteRewrite
              ? locateSqliteTranscript({
                  sessionId: typeof target.sessionId === "string" ? target.sessionId : id.sessionId,
                  storePath: target.storePath,
                  agentDir: host.agentDir,
                  agentId: id.agentId,
                  stateDir: process.env.OPENCLAW_STATE_DIR,
                })
              : undefined;
          const settings = services.settings(id.agentId);
          const result = await payDownDebt(services, settings, {
            identity: id,
            sessionFile: p.sessionFile,
            runtimeContext: p.runtimeContext,
            abortSignal: p.abortSignal instanceof AbortSignal ? p.abortSignal : undefined,
            ...(sqlite ? { sqlite } : {}),
          });
          const postTurn = turnEnded.delete(`${id.agentId}\u0000${id.sessionKey}`);
          const file = locateTranscript(p.sessionFile);
          const hostLoad =
            host.semantics.rawPrecheck &&
            postTurn &&
            file.kind === "jsonl" &&
            settings.enabled &&
            settings.maintenance.enabled
              ? await payDownHostLoad(services, settings, { identity: id, file: file.file })
              : undefined;
          const reclaim = await boundTranscriptFile(services, settings, {
            identity: id,
            sessionFile: p.sessionFile,
            messagesAtAnySize: host.generation === "2026.4",
          });
          void services.events.write({
            op: "maintain",
            agentId: id.agentId,
            sessionKey: id.sessionKey,
            ...result,
            ...(hostLoad ? { hostLoad } : {}),
            ...(reclaim ? { reclaim } : {}),
          });
          return result;
        },
        (err) => ({
          changed: false,
          bytesFreed: 0,
          rewrittenEntries: 0,
          reason: `engine_error: ${String((err as Error)?.message ?? err)}`,
        }),
      );
    },

    async ingest(raw: unknown) {
      const p = asParams(raw);
      return guard(
        services,
        { op: "ingest", context: ctx("ingest", p) },
        async () => {
          const id = who(p);
          const key = `ingest:${id.sessionId}:${fingerprintMessage(p.message)}:${String(asParams(p.message).timestamp ?? "")}`;
          const { status } = await commitTurnMessages(services, {
            identity: id,
            advancementKey: key,
            messages: [p.message],
          });
          void services.events.write({ op: "ingest", agentId: id.agentId, sessionKey: id.sessionKey, status });
          return { ingested: status === "committed" };
        },
        () => ({ ingested: false }),
      );
    },

    async ingestBatch(raw: unknown) {
      const p = asParams(raw);
      return guard(
        services,
        { op: "ingestBatch", context: ctx("ingestBatch", p) },
        async () => {
          const id = who(p);
          const messages = arr(p.messages);
          const key = `batch:${id.sessionId}:${messages.map(fingerprintMessage).join(",")}`;
          const { status } = await commitTurnMessages(services, { identity: id, advancementKey: key, messages });
          void services.events.write({
            op: "ingestBatch",
            agentId: id.agentId,
            sessionKey: id.sessionKey,
            status,
            messages: messages.length,
          });
          return { ingestedCount: status === "committed" ? messages.length : 0 };
        },
        () => ({ ingestedCount: 0 }),
      );
    },

    async afterTurn(raw: unknown) {
      const p = asParams(raw);
      await guard(
        services,
        { op: "afterTurn", context: ctx("afterTurn", p) },
        async () => {
          const id = who(p);
          const messages = arr(p.messages);
          const pre =
            typeof p.prePromptMessageCount === "number" && p.prePromptMessageCount >= 0
              ? Math.min(p.prePromptMessageCount, messages.length)
              : 0;
          const { status } = await commitTurnMessages(services, {
            identity: id,
            advancementKey: afterTurnKey(id.sessionId, pre, messages),
            messages,
            transcriptFrom: pre,
          });
          turnEnded.add(`${id.agentId}\u0000${id.sessionKey}`);
          void services.events.write({
            op: "afterTurn",
            agentId: id.agentId,
            sessionKey: id.sessionKey,
            status,
            messages: messages.length - pre,
          });
        },
        () => undefined,
      );
    },

    async commitTurn(raw: unknown) {
      const p = asParams(raw);
      return guard(
        services,
        { op: "commitTurn", context: ctx("commitTurn", p) },
        async () => {
          const id = who(p);
          const result = await commitTurnMessages(services, {
            identity: id,
            advancementKey: p.advancementKey,
            messages: p.messages,
          });
          void services.events.write({
            op: "commitTurn",
            agentId: id.agentId,
            sessionKey: id.sessionKey,
            status: result.status,
            messages: arr(p.messages).length,
          });
          return result;
        },
        () => {
          // Throwing would quarantine the engine. The host's transcript keeps the turn; the ledger's
          // counters resync from the transcript at the next assemble, so only bookkeeping is skipped.
          services.logger.warn("commitTurn bookkeeping skipped; the turn stays in the host transcript");
          return { status: "committed" as const };
        },
      );
    },

    async assemble(raw: unknown): Promise<LedgerAssembleResult> {
      const p = asParams(raw);
      return guard(
        services,
        { op: "assemble", context: ctx("assemble", p) },
        async () => {
          const id = who(p);
          const settings = services.settings(id.agentId);
          const started = performance.now();
          const view = settings.enabled
            ? await assembleView(services, ports, settings, {
                identity: id,
                messages: p.messages,
                tokenBudget: p.tokenBudget,
                model: p.model,
                generation: host.generation,
                semantics: host.semantics,
                hostConfig: host.config,
                prompt: p.prompt,
                runtimeSettings: p.runtimeSettings,
                overhead: services.requestOverhead.get(id.agentId),
              })
            : passThroughView(services, settings, p.messages, p.model);
          void services.events.write({
            op: "assemble",
            agentId: id.agentId,
            sessionKey: id.sessionKey,
            enabled: settings.enabled,
            tokenBudget: typeof p.tokenBudget === "number" ? p.tokenBudget : null,
            messagesIn: arr(p.messages).length,
            messagesOut: view.messages.length,
            estimatedTokens: view.estimatedTokens,
            ms: roundMs(performance.now() - started),
            ...(view.ledger
              ? {
                  debt: view.ledger.debt,
                  plan: view.ledger.plan,
                  hostBudget: view.ledger.host,
                  offloaded: view.ledger.offloaded,
                  summary: view.ledger.summaryInjected,
                  waits: roundedMs(view.ledger.waits),
                }
              : {}),
          });
          if (view.ledger && view.ledger.debt.debtTokens > 0) {
            const d = view.ledger.debt;
            services.logger.info(
              `maintenance-debt session=${id.sessionKey} raw=${d.rawHistoryTokens} assembled=${d.assembledTokens} budget=${d.promptBudget} debt=${d.debtTokens} reducible=${d.reducibleChars}`,
            );
          }
          return asHostResult(view);
        },
        () => asHostResult(safeFallbackView(p.messages, p.tokenBudget)),
      );
    },

    async compact(raw: unknown) {
      const p = asParams(raw);
      return guard(
        services,
        { op: "compact", context: ctx("compact", p) },
        async () => {
          const id = who(p);
          const settings = services.settings(id.agentId);
          const result = settings.enabled
            ? await compactSession(services, settings, {
                identity: id,
                tokenBudget: hostPromptBudget(host.generation, p.tokenBudget),
                force: p.force,
                currentTokenCount: p.currentTokenCount,
                skipReasonText: host.semantics.preflight?.skipReasonText,
                manual: isManualCompaction(p),
                ...(host.semantics.rawPrecheck && locateTranscript(p.sessionFile).kind === "jsonl"
                  ? { hostTranscript: p.sessionFile as string }
                  : {}),
              })
            : { ok: true, compacted: false, reason: "disabled" };
          void services.events.write({
            op: "compact",
            agentId: id.agentId,
            sessionKey: id.sessionKey,
            force: p.force === true,
            compacted: result.compacted,
            reason: result.reason ?? null,
            ...(result.compacted ? {} : { details: result.result?.details ?? null }),
          });
          return result;
        },
        () => ({ ok: false, compacted: false, reason: "engine_error" }),
      );
    },

    async prepareSubagentSpawn(raw: unknown) {
      const p = asParams(raw);
      return guard(
        services,
        { op: "prepareSubagentSpawn", context: { parent: label(p.parentSessionKey), child: label(p.childSessionKey) } },
        () =>
          prepareSubagentContext(
            services,
            { parentSessionKey: p.parentSessionKey, childSessionKey: p.childSessionKey, contextMode: p.contextMode },
            host.agentId ?? "main",
          ),
        () => undefined,
      );
    },

    async onSubagentEnded(raw: unknown) {
      const p = asParams(raw);
      await guard(
        services,
        { op: "onSubagentEnded", context: { child: label(p.childSessionKey) } },
        () => endSubagentContext(services, p.childSessionKey, host.agentId ?? "main"),
        () => undefined,
      );
    },

    async dispose() {
      await guard(
        services,
        { op: "dispose", context: {} },
        async () => {
          await flushSummaryWrites(services);
          await services.sessions.flush();
          await services.views.flush();
          const forgotten = internal.size > 0 ? await forgetInternalSessions(services, internal.values()) : 0;
          internal.clear();
          void services.events.write({
            op: "dispose",
            host: host.generation,
            ...(forgotten > 0 ? { internalSessionsForgotten: forgotten } : {}),
          });
          await services.events.flush();
        },
        () => undefined,
      );
    },
  };
}

/** The engine object's type. */
export type LedgerEngine = ReturnType<typeof createEngine>;

/** Milliseconds to two places, as the event log records them. */
function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function roundedMs<K extends string>(times: Partial<Record<K, number>>): Partial<Record<K, number>> {
  return Object.fromEntries(Object.entries<number | undefined>(times).map(([k, v]) => [k, roundMs(v ?? 0)])) as Partial<
    Record<K, number>
  >;
}
