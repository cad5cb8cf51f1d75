import type { AgentSettings } from "../config/schema.js";
import { planWindow } from "../window/planner.js";
import { fingerprintMessage } from "../host/messages.js";
import { estimateRawTokens } from "../host/raw-tally.js";
import type { LedgerServices } from "../runtime/services.js";

/** What a pass-through view uses: the token counter. */
export type PassThroughDeps = Pick<LedgerServices, "counter">;

/** A view without ledger metadata (pass-through or fallback). */
export interface PlainView {
  messages: unknown[];
  estimatedTokens: number;
  promptAuthority?: "assembled" | "preassembly_may_overflow";
  ledger?: undefined;
}

/**
 * The disabled agent's view: the host's messages unchanged with an exact
 * token count; nothing is stored.
 */
export function passThroughView(
  deps: PassThroughDeps,
  settings: AgentSettings,
  messages: unknown,
  model: unknown,
): PlainView {
  const list = Array.isArray(messages) ? (messages as unknown[]) : [];
  const counter = deps.counter(settings, typeof model === "string" ? model : undefined);
  return { messages: list, estimatedTokens: counter.countMessages(list), promptAuthority: "assembled" };
}

/**
 * What assemble returns when its own pipeline failed: the newest history
 * that fits by the host's chars/4 rule, tool pairs intact, and
 * `preassembly_may_overflow` so the host's own precheck guards this turn.
 */
export function safeFallbackView(messages: unknown, tokenBudget: unknown): PlainView {
  const list = Array.isArray(messages) ? (messages as unknown[]) : [];
  const budget =
    typeof tokenBudget === "number" && Number.isFinite(tokenBudget) && tokenBudget > 0
      ? tokenBudget
      : Number.MAX_SAFE_INTEGER;
  try {
    const plan = planWindow({
      messages: list,
      budget,
      count: (i) => estimateRawTokens(list[i]) + 4,
      fingerprint: (i) => fingerprintMessage(list[i]),
      refillRatio: 1,
    });
    return {
      messages: plan.kept.map((i) => list[i]),
      estimatedTokens: plan.tokens,
      promptAuthority: "preassembly_may_overflow",
    };
  } catch {
    // Pass-through must never fail the host's turn: a history the planner cannot walk goes as it came.
    return {
      messages: list,
      estimatedTokens: list.reduce<number>((s, m) => s + estimateRawTokens(m) + 4, 0),
      promptAuthority: "preassembly_may_overflow",
    };
  }
}
