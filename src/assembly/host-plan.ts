/**
 * The budget numbers the planner works with on the calling host line: the exact-token
 * budget (what the host passed, net of the output allowance where it passed the whole
 * window) and the host-currency budget (what its own estimators will admit around the
 * view: system prompt, tool schemas, the live user turn, the summary addition).
 */
import { hostChars, hostMessageBudget, hostMessageChars, type HostBudget } from "../host/host-estimate.js";
import { currentTurnReserveChars, type HostLineSemantics } from "../host/host-lines.js";
import { memoryFlushFromConfig, modelLimitsFromConfig } from "../host/normalize.js";

/** System prompt and tool schemas the host sends around the view, in chars. */
export interface RequestOverhead {
  systemChars: number;
  toolsChars: number;
}

/** Inputs of {@link resolveHostPlan}. */
export interface HostPlanInput {
  semantics: HostLineSemantics;
  /** The host config handed to the factory (2026.5.28 onwards). */
  config: unknown;
  model: unknown;
  /** `tokenBudget` as the host passed it. */
  tokenBudget: unknown;
  /** assemble's `prompt`: the live user turn the host appends after the view. */
  prompt: unknown;
  /** assemble's `runtimeSettings` (2026.8.x onwards: `limits.maxOutputTokens`). */
  runtimeSettings: unknown;
  overhead: RequestOverhead | undefined;
  /** Chars the summary may add to the system prompt. */
  summaryChars: number;
  /** The history assemble received: its recent answers size the reply the host adds at its threshold check. */
  history?: readonly unknown[];
}

/** What the planner gets from the host line. */
export interface HostPlan {
  contextWindow: number | undefined;
  maxOutputTokens: number | undefined;
  /** Ceiling on the exact-token budget (window − output allowance), when the budget is the whole window. */
  exactCeiling: number | undefined;
  /** Host units left for the view's messages. */
  host: HostBudget;
  /** Weighted chars the host adds around the view (overhead, live prompt, summary). */
  fixedChars: number;
  /** The factor the binding estimator applies to chars/4 (1 when none binds). */
  factor: number;
}

const posInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;

/** Resolves the line's budgets for one assemble. */
export function resolveHostPlan(input: HostPlanInput): HostPlan {
  const { semantics } = input;
  const limits = modelLimitsFromConfig(input.config, input.model);
  const rsLimits = (input.runtimeSettings as { limits?: { maxOutputTokens?: unknown } } | undefined)?.limits;
  const wholeWindow = semantics.tokenBudget === "whole-window" ? posInt(input.tokenBudget) : undefined;
  const contextWindow = limits.contextWindow ?? wholeWindow;
  // The transport asks for the model's configured maxTokens; runtimeSettings carry a generic default on some passes
  // (8000 seen).
  const maxOutputTokens =
    limits.maxTokens ??
    posInt(rsLimits?.maxOutputTokens) ??
    (contextWindow ? Math.min(8_192, Math.floor(contextWindow / 8)) : undefined);
  // Measured by the host (`llm_input`) when granted, else the line's bare-agent figure.
  const overhead = input.overhead ?? semantics.defaultOverhead;
  const livePromptChars = semantics.appendsLivePrompt && typeof input.prompt === "string" ? hostChars(input.prompt) : 0;
  const fixedChars = overhead.systemChars + overhead.toolsChars + livePromptChars + input.summaryChars;
  const exactCeiling =
    wholeWindow && maxOutputTokens && semantics.line !== "2026.4"
      ? Math.max(1, wholeWindow - maxOutputTokens)
      : undefined;
  if (!contextWindow || !maxOutputTokens)
    return {
      contextWindow,
      maxOutputTokens,
      exactCeiling,
      host: { messageUnits: undefined, rule: "none" },
      fixedChars,
      factor: 1,
    };
  // The live prompt and (2026.8.x onwards) the current turn's tool result arrive after assemble: both count.
  const appendedChars = livePromptChars + currentTurnReserveChars(semantics, contextWindow);
  const host = hostMessageBudget(semantics, {
    contextWindow,
    maxOutputTokens,
    systemChars: overhead.systemChars + input.summaryChars,
    toolsChars: overhead.toolsChars,
    livePromptChars: appendedChars,
    replyTokens: Math.min(maxOutputTokens, recentReplyTokens(input.history ?? [])),
    memoryFlush: memoryFlushFromConfig(input.config),
  });
  // What the host's own estimator multiplies by: the precheck's, else the transport's (the threshold is the provider's
  // count).
  const factor =
    host.rule === "precheck"
      ? (semantics.precheck?.safetyMargin ?? 1)
      : host.rule === "none"
        ? 1
        : (semantics.outputClamp?.safetyMargin ?? 1);
  return { contextWindow, maxOutputTokens, exactCeiling, host, fixedChars, factor };
}

const RECENT_REPLIES = 3;

/** Host units of the largest of the session's last few assistant messages: the size of the reply to expect. */
function recentReplyTokens(history: readonly unknown[]): number {
  let largest = 0;
  let seen = 0;
  for (let i = history.length - 1; i >= 0 && seen < RECENT_REPLIES; i--) {
    if ((history[i] as { role?: unknown } | null)?.role !== "assistant") continue;
    seen++;
    largest = Math.max(largest, Math.ceil(hostUnitsOf(history[i])));
  }
  return largest;
}

/** Host units (weighted chars / 4) of one message. */
export function hostUnitsOf(message: unknown): number {
  return hostMessageChars(message) / 4;
}

/**
 * What the host will count for what the engine returns (the messages and its system
 * prompt addition), by the binding estimator, rounded up. The host's own system prompt,
 * tool schemas and live prompt are its to count; the plan already left room for them.
 */
export function hostEstimateOf(plan: HostPlan, messages: readonly unknown[], additionChars = 0): number {
  const chars = messages.reduce<number>((sum, m) => sum + hostMessageChars(m), additionChars);
  return Math.ceil((chars / 4) * plan.factor);
}
