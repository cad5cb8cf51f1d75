/**
 * The budget of one assembly, derived in one place: the host's prompt budget in exact
 * tokens, the margin and reserves inside it, the room left for messages, and the host's
 * own units (its chars/4 estimators) where they bind. Every later step of the assembly
 * reads these figures; none derives its own.
 */
import type { AgentSettings } from "../config/schema.js";
import type { HostLineSemantics } from "../host/host-lines.js";
import { hostPromptBudget, normalizeBudget, type HostGeneration, type NormalizedBudget } from "../host/normalize.js";
import { REPLY_PRIMING_TOKENS } from "../tokens/count-projection.js";
import { resolveHostPlan, type HostPlan, type RequestOverhead } from "./host-plan.js";

/** Below this share of the exact message budget the host's budget is not planned for (nothing useful would fit). */
export const HOST_MIN_VIABLE_SHARE = 0.1;

/** What the host passed that the budget depends on. */
export interface AssemblyBudgetInput {
  generation: HostGeneration;
  semantics: HostLineSemantics;
  tokenBudget: unknown;
  model?: unknown;
  hostConfig?: unknown;
  prompt?: unknown;
  runtimeSettings?: unknown;
  overhead?: RequestOverhead;
  /** The history assemble received. */
  messages: readonly unknown[];
}

/** Every budget figure of one assembly. */
export interface AssemblyBudget {
  /** The host's prompt budget in exact tokens (normalised, capped by the window less the output allowance). */
  budget: NormalizedBudget;
  /** Exact tokens kept free as a safety margin. */
  margin: number;
  /** Exact tokens the kept messages may use: the budget less margin, summary reserve and reply priming. */
  messageBudget: number;
  /** The host line's plan: its estimator, its room and what it adds around the view. */
  hostPlan: HostPlan;
  /** The host's units left for messages less the safety share; undefined where no host estimator counts. */
  rawHostUnits: number | undefined;
  /** {@link rawHostUnits} when the host leaves a viable room, else undefined (plan by exact count alone). */
  hostUnits: number | undefined;
  /** Exact tokens left for the summary once messages of `keptTokens` are kept. */
  summaryRoom(keptTokens: number): number;
}

/** Resolves the budget of one assembly (see {@link AssemblyBudget}). */
export function resolveAssemblyBudget(settings: AgentSettings, input: AssemblyBudgetInput): AssemblyBudget {
  const hostPlan = resolveHostPlan({
    semantics: input.semantics,
    config: input.hostConfig,
    model: input.model,
    tokenBudget: input.tokenBudget,
    prompt: input.prompt,
    runtimeSettings: input.runtimeSettings,
    overhead: input.overhead,
    summaryChars: settings.summary.enabled ? settings.summary.maxInjectedChars : 0,
    history: input.messages,
  });
  const budget = normalizeBudget(hostPromptBudget(input.generation, input.tokenBudget), {
    fallbackTokens: settings.budget.fallbackBudgetTokens,
    minTokens: settings.budget.minBudgetTokens,
    ...(hostPlan.exactCeiling !== undefined ? { maxTokens: hostPlan.exactCeiling } : {}),
  });
  const margin = Math.ceil(budget.tokens * settings.budget.safetyMarginRatio) + settings.budget.safetyMarginTokens;
  const summaryReserve = settings.summary.enabled ? Math.ceil(settings.summary.maxInjectedChars / 3) + 16 : 0;
  const messageBudget = Math.max(1, budget.tokens - margin - summaryReserve - REPLY_PRIMING_TOKENS);
  // The host's units left for messages, less the same safety share the exact budget keeps.
  const rawHostUnits =
    hostPlan.host.messageUnits === undefined
      ? undefined
      : Math.floor(hostPlan.host.messageUnits * (1 - settings.budget.safetyMarginRatio));
  // When the host's own overhead leaves (almost) nothing for the conversation (2026.8.2 at 32k: system prompt,
  // 85k chars of tool schemas and an appended tool result), no view can avoid its clamp: plan by exact count,
  // so the turn keeps its question and tool results, and say so in the host reading.
  const hostViable = rawHostUnits !== undefined && rawHostUnits >= HOST_MIN_VIABLE_SHARE * messageBudget;
  return {
    budget,
    margin,
    messageBudget,
    hostPlan,
    rawHostUnits,
    hostUnits: hostViable ? rawHostUnits : undefined,
    summaryRoom: (keptTokens) => budget.tokens - margin - keptTokens - REPLY_PRIMING_TOKENS,
  };
}
