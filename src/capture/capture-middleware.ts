import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { LEDGER_MARKER, textOf } from "../host/messages.js";
import type { LedgerRuntime } from "../runtime/ledger-runtime.js";
import type { CaptureIndex } from "./capture-index.js";
import { isOversized } from "../assembly/shape-limits.js";

/**
 * Registers tool-result middleware that stashes the raw output of oversized
 * tool results before the host truncates them (2026.9.x keeps at most
 * 16-64k chars). It never changes the result: capture only.
 */
export function registerCapture(api: OpenClawPluginApi, rt: LedgerRuntime, captures: (agentId: string) => CaptureIndex): void {
  api.registerAgentToolResultMiddleware(
    async (event, ctx) => {
      try {
        const agentId = ctx.agentId ?? "main";
        const settings = rt.settings(agentId);
        if (!settings.enabled || !settings.offload.capture) return;
        const text = textOf(event.result);
        if (!text || text.startsWith(LEDGER_MARKER) || !isOversized(text, settings)) return;
        const { handle } = await rt.store(agentId).stash(text, {
          kind: "tool-output",
          origin: { toolName: event.toolName, toolCallId: event.toolCallId, agentId, sessionKey: ctx.sessionKey ?? "unknown" },
        });
        await captures(agentId).record({ toolCallId: event.toolCallId, toolName: event.toolName, handle, chars: text.length, source: "middleware" });
        void rt.events.write({ op: "capture", agentId, toolName: event.toolName, toolCallId: event.toolCallId, chars: text.length, handle });
      } catch (err) {
        rt.logger.warn(`capture failed tool=${event.toolName}: ${(err as Error).message}`);
      }
      return undefined;
    },
    { runtimes: ["openclaw"] },
  );
}
