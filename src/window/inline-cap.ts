import type { AgentSettings } from "../config/schema.js";

/** Share of the message budget one tool output may take inline before it is offloaded. */
export const MAX_INLINE_SHARE = 0.12;
// Dense tool output (JSON, logs) runs about 3 chars per token.
const CHARS_PER_TOKEN = 3;

/**
 * Settings whose offload thresholds fit the budget: under a small budget
 * (2026.9.6's in-loop calls, an 8k model) an 8,000-char output would be a
 * third of the window and one such unit blocks the window from filling, so
 * outputs over {@link MAX_INLINE_SHARE} of the message budget are offloaded
 * (losslessly, with a preview). Unchanged when the configured thresholds are lower.
 */
export function capInlineOutputs(settings: AgentSettings, messageBudget: number): AgentSettings {
  const cap = Math.max(200, Math.floor(messageBudget * MAX_INLINE_SHARE * CHARS_PER_TOKEN));
  if (!settings.offload.enabled || cap >= settings.offload.maxChars) return settings;
  return {
    ...settings,
    offload: {
      ...settings.offload,
      maxChars: cap,
      structuredMaxChars: Math.min(settings.offload.structuredMaxChars, cap),
    },
  };
}
