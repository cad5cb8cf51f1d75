import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { countLines } from "../artifacts/meta.js";
import { LEDGER_MARKER } from "../host/messages.js";
import type { LedgerRuntime } from "../runtime/ledger-runtime.js";
import { isOversized } from "../results/shape-limits.js";
import { bestOriginal, MIDDLEWARE_TEXT_CAP } from "./best-original.js";
import type { CaptureIndex } from "./capture-index.js";

/** Who ran a tool call, as the host's hook and middleware contexts say. */
interface ToolCallContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
}

/**
 * Stashes the fullest original of one oversized tool result and records it
 * under (agent, session, call id). Never throws: capture is best effort.
 */
export async function captureToolCall(
  rt: LedgerRuntime,
  captures: (agentId: string) => CaptureIndex,
  call: { toolCallId: string; toolName: string; result: unknown; source: string; textCap?: number },
  ctx: ToolCallContext,
): Promise<void> {
  try {
    const agentId = ctx.agentId ?? "main";
    const settings = rt.settings(agentId);
    if (!settings.enabled || !settings.offload.capture) return;
    // A capture must belong to a session: without one it could be linked to anybody's result.
    if (!ctx.sessionKey && !ctx.sessionId) return;
    const original = await bestOriginal(call.result, call.source, { textCap: call.textCap });
    if (!original || original.text.startsWith(LEDGER_MARKER) || !isOversized(original.text, settings)) return;
    const { handle } = await rt.store(agentId).stash(original.text, {
      kind: "tool-output",
      origin: {
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        agentId,
        sessionKey: ctx.sessionKey ?? ctx.sessionId ?? "unknown",
      },
    });
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
    void rt.events.write({
      op: "capture",
      agentId,
      toolName: call.toolName,
      toolCallId: call.toolCallId,
      chars: original.text.length,
      source: original.source,
      handle,
    });
  } catch (err) {
    rt.logger.warn(`capture failed tool=${call.toolName}: ${(err as Error).message}`);
  }
}

/**
 * Captures raw tool output before the host truncates it, through tool-result
 * middleware (it sees at most 100,000 chars of a text block; capture only, the
 * result is never changed). 2026.5.28 refuses it for non-bundled plugins; there
 * `commitTurn`/`afterTurn` capture what the message holds (spill file,
 * `details.aggregated`, text). The `after_tool_call` hook is not used: on
 * 2026.9.6 its result is cut to ~8,000 chars ("…(truncated)…").
 */
export function registerCapture(
  api: OpenClawPluginApi,
  rt: LedgerRuntime,
  captures: (agentId: string) => CaptureIndex,
): void {
  if (typeof api.registerAgentToolResultMiddleware === "function") {
    try {
      api.registerAgentToolResultMiddleware(
        async (event, ctx) => {
          await captureToolCall(
            rt,
            captures,
            {
              toolCallId: event.toolCallId,
              toolName: event.toolName,
              result: event.result,
              source: "middleware",
              textCap: MIDDLEWARE_TEXT_CAP,
            },
            ctx,
          );
          return undefined;
        },
        { runtimes: ["openclaw"] },
      );
    } catch (err) {
      rt.logger.warn(`tool-result middleware not registered: ${(err as Error).message}`);
    }
  }
}
