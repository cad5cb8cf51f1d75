/**
 * The host builds the model request around the engine's view: system prompt, tool
 * schemas. The engine never sees either, but the host's own estimators count them.
 * When the operator grants the plugin conversation access
 * (`plugins.entries.context-ledger.hooks.allowConversationAccess: true`, required for
 * non-bundled plugins from 2026.5.x), the `llm_input` hook reports both per request;
 * otherwise the engine plans with a default overhead.
 */

/** Chars the host adds around the view. */
export interface MeasuredOverhead {
  systemChars: number;
  toolsChars: number;
}

interface HookApi {
  on?: (name: string, handler: (event: unknown, ctx: unknown) => void, opts?: unknown) => void;
  config?: unknown;
  id?: unknown;
}

function conversationAccessGranted(api: HookApi): boolean {
  try {
    const entries = (
      api.config as
        { plugins?: { entries?: Record<string, { hooks?: { allowConversationAccess?: unknown } }> } } | undefined
    )?.plugins?.entries;
    return entries?.["context-ledger"]?.hooks?.allowConversationAccess === true;
  } catch {
    return false;
  }
}

function agentIdOf(ctx: unknown): string {
  const rec = (ctx && typeof ctx === "object" ? ctx : {}) as { agentId?: unknown; sessionKey?: unknown };
  if (typeof rec.agentId === "string" && rec.agentId) return rec.agentId;
  const m = typeof rec.sessionKey === "string" ? /^agent:([^:]+):/.exec(rec.sessionKey) : null;
  return m?.[1] ?? "main";
}

/**
 * Registers an `llm_input` hook that records each agent's system prompt and tool-schema
 * size into `into`, when the host offers hooks and the operator granted access. Never throws.
 * @returns whether the probe was registered.
 */
export function registerRequestOverheadProbe(api: unknown, into: Map<string, MeasuredOverhead>): boolean {
  const hookApi = (api ?? {}) as HookApi;
  if (typeof hookApi.on !== "function" || !conversationAccessGranted(hookApi)) return false;
  try {
    hookApi.on("llm_input", (event, ctx) => {
      try {
        const e = (event ?? {}) as { systemPrompt?: unknown; tools?: unknown };
        const systemChars = typeof e.systemPrompt === "string" ? e.systemPrompt.length : 0;
        const toolsChars = Array.isArray(e.tools) ? JSON.stringify(e.tools).length : 0;
        if (systemChars > 0 || toolsChars > 0) into.set(agentIdOf(ctx), { systemChars, toolsChars });
      } catch {
        // a measurement is optional; the default overhead stays in use
      }
    });
    return true;
  } catch {
    return false;
  }
}
