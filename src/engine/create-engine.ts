import { assembleForHost } from "../assembly/assemble-for-host.js";
import { createAssemblyPorts } from "./assembly-ports.js";
import { safeFallbackView } from "../assembly/pass-through.js";
import {
  asParams,
  isInternalSessionKey,
  normalizeFactoryContext,
  resolveSessionIdentity,
  type HostContext,
  type HostParams,
  type SessionIdentity,
} from "../host/normalize.js";
import { safeJson } from "../json.js";
import { compactForHost } from "../maintenance/compact-call.js";
import type { CompactOutcome } from "../maintenance/compact.js";
import { maintainSession } from "../maintenance/maintain-session.js";
import { forgetInternalSessions } from "../runtime/internal-sessions.js";
import type { LedgerServices } from "../runtime/services.js";
import { endSubagentContext, prepareSubagentContext } from "../subagents/subagent-context.js";
import type { CommitTurnResult } from "../turns/commit-turn.js";
import { commitTurn, ingestAfterTurn, ingestMessage, ingestMessages } from "../turns/turn-calls.js";
import { asHostResult, type LedgerAssembleResult } from "../host/host-types.js";
import { guard, sessionMethods } from "./boundary.js";
import { ENGINE_INFO } from "../host/engine-info.js";
import { flushSummaryWrites } from "./view-summary.js";

// Log context must never throw: a hostile `{"toString":1}` key would otherwise escape before the boundary.
const label = (value: unknown): string => (typeof value === "string" ? value : safeJson(value).slice(0, 80));
const sessionSlot = (id: SessionIdentity): string => `${id.agentId}\u0000${id.sessionKey}`;

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
  const identify = (params: HostParams): SessionIdentity => {
    const identity = resolveSessionIdentity(params, host);
    if (isInternalSessionKey(identity.sessionKey))
      internal.set(sessionSlot(identity), { agentId: identity.agentId, sessionKey: identity.sessionKey });
    return identity;
  };
  const sessionMethod = sessionMethods(services, host.generation, identify);
  void services.events.write({
    op: "factory",
    host: host.generation,
    hostVersion: host.version ?? null,
    versionSource: host.versionSource,
    agentId: host.agentId ?? null,
  });

  return {
    info: ENGINE_INFO,

    bootstrap: sessionMethod<{ bootstrapped: boolean; importedMessages: number; reason?: string }>(
      "bootstrap",
      () => ({ bootstrapped: false, importedMessages: 0, reason: "engine_error" }),
      async ({ identity }) => ({
        result: { bootstrapped: true, importedMessages: 0 },
        event: { sessionId: identity.sessionId },
      }),
    ),

    maintain: sessionMethod(
      "maintain",
      (err) => ({
        changed: false,
        bytesFreed: 0,
        rewrittenEntries: 0,
        reason: `engine_error: ${String((err as Error)?.message ?? err)}`,
      }),
      (call) =>
        maintainSession(services, host, { ...call, takeTurnEnded: () => turnEnded.delete(sessionSlot(call.identity)) }),
    ),

    ingest: sessionMethod(
      "ingest",
      () => ({ ingested: false }),
      (call) => ingestMessage(services, call),
    ),

    ingestBatch: sessionMethod(
      "ingestBatch",
      () => ({ ingestedCount: 0 }),
      (call) => ingestMessages(services, call),
    ),

    afterTurn: sessionMethod(
      "afterTurn",
      () => undefined,
      async (call) => {
        const outcome = await ingestAfterTurn(services, call);
        turnEnded.add(sessionSlot(call.identity));
        return outcome;
      },
    ),

    commitTurn: sessionMethod<CommitTurnResult>(
      "commitTurn",
      () => {
        // Throwing would quarantine the engine. The host's transcript keeps the turn; the ledger's
        // counters resync from the transcript at the next assemble, so only bookkeeping is skipped.
        services.logger.warn("commitTurn bookkeeping skipped; the turn stays in the host transcript");
        return { status: "committed" as const };
      },
      (call) => commitTurn(services, call),
    ),

    assemble: sessionMethod(
      "assemble",
      (_err, { params }): LedgerAssembleResult => asHostResult(safeFallbackView(params.messages, params.tokenBudget)),
      (call) => assembleForHost(services, ports, host, call),
    ),

    compact: sessionMethod<CompactOutcome>(
      "compact",
      () => ({ ok: false, compacted: false, reason: "engine_error" }),
      (call) => compactForHost(services, host, call),
    ),

    async prepareSubagentSpawn(raw: unknown) {
      const params = asParams(raw);
      const { parentSessionKey, childSessionKey, contextMode } = params;
      return guard(
        services,
        { op: "prepareSubagentSpawn", context: { parent: label(parentSessionKey), child: label(childSessionKey) } },
        () =>
          prepareSubagentContext(services, { parentSessionKey, childSessionKey, contextMode }, host.agentId ?? "main"),
        () => undefined,
      );
    },

    async onSubagentEnded(raw: unknown) {
      const { childSessionKey } = asParams(raw);
      await guard(
        services,
        { op: "onSubagentEnded", context: { child: label(childSessionKey) } },
        () => endSubagentContext(services, childSessionKey, host.agentId ?? "main"),
        () => undefined,
      );
    },

    async dispose() {
      const dispose = async () => {
        await flushSummaryWrites(services);
        await services.sessions.flush();
        await services.views.flush();
        const forgotten = internal.size > 0 ? await forgetInternalSessions(services, internal.values()) : 0;
        internal.clear();
        const forgottenField = forgotten > 0 ? { internalSessionsForgotten: forgotten } : {};
        void services.events.write({ op: "dispose", host: host.generation, ...forgottenField });
        await services.events.flush();
      };
      await guard(services, { op: "dispose", context: {} }, dispose, () => undefined);
    },
  };
}

/** The engine object's type. */
export type LedgerEngine = ReturnType<typeof createEngine>;
