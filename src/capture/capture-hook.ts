/**
 * Captures raw tool output from the `after_tool_call` hook. Every line from 2026.4.24
 * to 2026.9.6 hands the hook `sanitizeToolResult(result)`: text blocks cut to 8,000
 * chars, but `details` whole (redacted for model-visible secrets from 2026.5.28), and
 * `details.aggregated` of an `exec` holds what the tool kept of its output (200,000
 * chars from 2026.6.11). A tool-result middleware is not used: with any middleware
 * registered, 2026.6.11-2026.9.6 cut every result to 100,000 chars for everyone
 * (`sanitizeToolResultForMiddleware`), the model and the transcript included.
 */
import { countLines, isRemoteStore } from "../artifacts/index.js";
import { HOST_LINES, hostLineOf } from "../host/host-lines.js";
import { agentIdFromSessionKey } from "../host/normalize.js";
import { LEDGER_MARKER } from "../host/messages.js";
import type { LedgerServices } from "../runtime/services.js";
import { isOversized } from "../results/shape-tool-result.js";
import { bestOriginal } from "./best-original.js";
import type { CaptureIndex } from "./capture-index.js";
import { CAPTURE_WAIT_MS, createPendingCaptures, type PendingCaptures, type PendingScope } from "./pending-captures.js";
import { stateSlot } from "../runtime/state-slots.js";

/** What the capture hook uses: settings, the store, logs and the registry of captures in flight. */
export type CaptureHookDeps = Pick<LedgerServices, "settings" | "store" | "logger" | "events" | "processWide">;

/** Who ran a tool call, as the host's hook context says. */
export interface ToolCallContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
}

/** One finished tool call, as `after_tool_call` reports it. */
export interface FinishedToolCall {
  toolCallId: string;
  toolName: string;
  result: unknown;
  /** What handed it over (recorded with the capture). */
  source: string;
}

const PENDING_CAPTURES = stateSlot("capture:pending", createPendingCaptures);

/** The runtime's registry of captures still being written. */
export function pendingCapturesOf(deps: Pick<LedgerServices, "processWide">): PendingCaptures {
  return deps.processWide.get(PENDING_CAPTURES);
}

/**
 * Waits (bounded) for the captures of a session that the hook is still writing; a wait that gives up is logged,
 * and the caller goes on with what is stored.
 */
export async function settleCaptures(
  deps: Pick<LedgerServices, "processWide" | "logger">,
  scope: PendingScope,
): Promise<void> {
  const left = await pendingCapturesOf(deps).settle(scope);
  if (left > 0)
    deps.logger.warn(
      `${left} capture(s) of session ${scope.sessionKey ?? scope.sessionId ?? "?"} still running after ${CAPTURE_WAIT_MS} ms; going on without them`,
    );
}

/**
 * The agent a tool call ran for: the context's, else the one its session key names.
 * Undefined when neither says: a capture is never filed under a guessed agent.
 */
export function agentOfCall(ctx: ToolCallContext): string | undefined {
  return ctx.agentId || agentIdFromSessionKey(ctx.sessionKey);
}

/**
 * Stashes the fullest original of one oversized tool result and records it
 * under (agent, session, call id). Never throws: capture is best effort.
 */
export async function captureToolCall(
  deps: CaptureHookDeps,
  captures: (agentId: string) => CaptureIndex,
  call: FinishedToolCall,
  ctx: ToolCallContext,
): Promise<void> {
  try {
    const agentId = agentOfCall(ctx);
    if (!agentId) {
      void deps.events.write({ op: "capture:skipped", reason: "no agent", toolCallId: call.toolCallId });
      return;
    }
    const settings = deps.settings(agentId);
    if (!settings.enabled || !settings.offload.capture) return;
    // A capture must belong to a session: without one it could be linked to anybody's result.
    if (!ctx.sessionKey && !ctx.sessionId) return;
    const original = await bestOriginal(call.result, call.source, { toolName: call.toolName });
    if (!original || original.text.startsWith(LEDGER_MARKER) || !isOversized(original.text, settings)) {
      void deps.events.write({
        op: "capture:skipped",
        reason: original ? "not oversized" : "no text",
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        chars: original?.text.length ?? 0,
        source: original?.source ?? null,
      });
      return;
    }
    const store = deps.store(agentId);
    const { handle, created } = await store.stash(original.text, {
      kind: "tool-output",
      origin: {
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        agentId,
        sessionKey: ctx.sessionKey ?? ctx.sessionId ?? "unknown",
      },
    });
    // Assembly links a capture only when its original is on this disk (a synchronous read). A blob another gateway
    // put in the shared bucket is not: one read brings it into the local cache, or the host's copy of the output
    // would be stored again beside it.
    if (!created && isRemoteStore(settings.store)) await store.readText(handle).catch(() => undefined);
    await captures(agentId).record({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ...(ctx.sessionKey ? { sessionKey: ctx.sessionKey } : {}),
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
      handle,
      chars: original.text.length,
      lines: countLines(original.text),
      source: original.source,
      ...(original.partial ? { partial: original.partial } : {}),
    });
    void deps.events.write({
      op: "capture",
      agentId,
      toolName: call.toolName,
      toolCallId: call.toolCallId,
      chars: original.text.length,
      source: original.source,
      handle,
    });
  } catch (err) {
    deps.logger.warn(`capture failed tool=${call.toolName}: ${(err as Error).message}`);
  }
}

/**
 * True where the capture runs in `after_tool_call` (the host line's `capturesAfterToolCall`, and any version the table
 * does not place); elsewhere it runs at turn end (see {@link registerCapture}).
 */
export function capturesAfterToolCall(hostVersion: string | undefined): boolean {
  const line = hostLineOf(hostVersion);
  return line === undefined || HOST_LINES[line].capturesAfterToolCall;
}

interface HookApi {
  on?: (name: string, handler: (event: unknown, ctx: unknown) => void) => void;
}

/**
 * Registers the `after_tool_call` capture. The hook returns at once and the capture runs beside
 * the turn, tracked per session ({@link pendingCapturesOf}) for assemble and commitTurn to wait
 * on. Never throws; a host without hooks captures at turn end only. So do the lines whose
 * `capturesAfterToolCall` is false (2026.4.x and 2026.5.x, by `hostVersion`): their transcripts
 * already hold all that `exec` kept for the turn-end capture, and with a capture running beside
 * each tool call, 2026.4.24's gateway queued a user's next message under load.
 */
export function registerCapture(
  api: unknown,
  deps: CaptureHookDeps,
  captures: (agentId: string) => CaptureIndex,
  hostVersion?: string,
): void {
  const hookApi = (api ?? {}) as HookApi;
  if (typeof hookApi.on !== "function") return;
  if (!capturesAfterToolCall(hostVersion)) return;
  const pending = pendingCapturesOf(deps);
  try {
    hookApi.on("after_tool_call", (event, rawCtx) => {
      const e = (event ?? {}) as { toolCallId?: unknown; toolName?: unknown; result?: unknown; error?: unknown };
      const ctx = (rawCtx ?? {}) as ToolCallContext & { toolCallId?: unknown; toolName?: unknown };
      const toolCallId = typeof e.toolCallId === "string" ? e.toolCallId : ctx.toolCallId;
      const toolName = typeof e.toolName === "string" ? e.toolName : ctx.toolName;
      if (typeof toolCallId !== "string" || typeof toolName !== "string" || e.result === undefined) return;
      const job = captureToolCall(
        deps,
        captures,
        { toolCallId, toolName, result: e.result, source: "after-tool-call" },
        ctx,
      );
      pending.track({ sessionKey: ctx.sessionKey, sessionId: ctx.sessionId }, job);
    });
  } catch (err) {
    deps.logger.warn(`after_tool_call capture not registered: ${(err as Error).message}`);
  }
}
