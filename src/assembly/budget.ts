/**
 * The budget of one assembly, derived in one place: the host's prompt budget in exact
 * tokens, the margin and reserves inside it, the room left for messages, the host's own
 * units (its chars/4 estimators) where they bind, and what follows from them: the charge
 * of one message in the planner's single currency and the inline size of a tool output.
 * Every later step of the assembly reads these figures; none derives its own.
 *
 * Host units (weighted chars / 4) enter here and nowhere else in assembly: the host line's
 * plan ({@link resolveHostPlan}) turns the host's estimators into the room they leave the
 * view, and {@link AssemblyBudget.charge} scales a message's host units onto the exact budget.
 */
import type { AgentSettings } from "../config/schema.js";
import { hostChars, hostMessageBudget, hostMessageChars, type HostBudget } from "../host/host-estimate.js";
import type { HostLineSemantics } from "../host/host-lines.js";
import { normalizeBudget, readHostBudget, type NormalizedBudget } from "../host/host-budget.js";

/** Below this share of the exact message budget the host's budget is not planned for (nothing useful would fit). */
export const HOST_MIN_VIABLE_SHARE = 0.1;
/** Share of the message budget one tool output may take inline before it is offloaded. */
export const MAX_INLINE_SHARE = 0.12;
// Dense tool output (JSON, logs) runs about 3 chars per token.
const CHARS_PER_TOKEN = 3;

/** What the host passed that the budget depends on. */
export interface AssemblyBudgetInput {
  semantics: HostLineSemantics;
  tokenBudget: unknown;
  model?: unknown;
  hostConfig?: unknown;
  prompt?: unknown;
  runtimeSettings?: unknown;
  overhead?: RequestOverhead;
  /** The history assemble received. */
  messages: readonly unknown[];
  /** Tokens the provider adds once per request to prime the reply (the counter's `countMessages([])`). */
  replyPrimingTokens: number;
  /** Where host sizes of message objects are kept between calls (the runtime's); none: sized every time. */
  hostCharsMemo?: WeakMap<object, number>;
  /**
   * Chars the last summary block of a budget's class wanted (quoted user messages can make it longer than
   * `summary.maxInjectedChars`; the reserve takes it up to `summary.userMessagesShare` of the budget more).
   * @default none
   */
  lastSummaryChars?: (budgetTokens: number) => number;
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
  /**
   * The settings tool results are shaped with: under a small budget (2026.9.6's in-loop calls, an 8k model) an
   * 8,000-char output would be a third of the window and block it from filling, so outputs over
   * {@link MAX_INLINE_SHARE} of the message budget are offloaded (losslessly, with a preview). The configured
   * settings when their thresholds are lower.
   */
  shaping: AgentSettings;
  /**
   * What one message costs the planner, given its exact tokens: the larger of those and its host units scaled onto
   * the exact budget, so when the charged sum fits, both sums fit.
   */
  charge(exactTokens: number, message: unknown): number;
  /** What the host's binding estimator will count for the returned messages and the system prompt addition. */
  hostEstimate(messages: readonly unknown[], addition?: string): number;
  /** Weighted chars of one message as the host sizes it. */
  hostChars(message: unknown): number;
  /** Exact tokens left for the summary once messages of `keptTokens` are kept. */
  summaryRoom(keptTokens: number): number;
}

/** Resolves the budget of one assembly (see {@link AssemblyBudget}). */
export function resolveAssemblyBudget(settings: AgentSettings, input: AssemblyBudgetInput): AssemblyBudget {
  const roughBudget =
    typeof input.tokenBudget === "number" && input.tokenBudget > 0
      ? input.tokenBudget
      : settings.budget.fallbackBudgetTokens;
  const memo = input.hostCharsMemo;
  const sizeOf = (message: unknown): number => hostMessageChars(message, 4, memo);
  const hostPlan = resolveHostPlan({
    semantics: input.semantics,
    config: input.hostConfig,
    model: input.model,
    tokenBudget: input.tokenBudget,
    prompt: input.prompt,
    runtimeSettings: input.runtimeSettings,
    overhead: input.overhead,
    summaryChars: settings.summary.enabled ? summaryBlockChars(settings, input, roughBudget) : 0,
    history: input.messages,
    hostChars: sizeOf,
  });
  const budget = normalizeBudget(hostPlan.promptBudget, {
    fallbackTokens: settings.budget.fallbackBudgetTokens,
    minTokens: settings.budget.minBudgetTokens,
    ...(hostPlan.exactCeiling !== undefined ? { maxTokens: hostPlan.exactCeiling } : {}),
  });
  const margin = Math.ceil(budget.tokens * settings.budget.safetyMarginRatio) + settings.budget.safetyMarginTokens;
  // The summary block: its bound, and on top the conversation's user messages quoted whole (within their share).
  const summaryReserve = settings.summary.enabled
    ? Math.ceil(summaryBlockChars(settings, input, budget.tokens) / 3) + 16
    : 0;
  const priming = input.replyPrimingTokens;
  const messageBudget = Math.max(1, budget.tokens - margin - summaryReserve - priming);
  // The host's units left for messages, less the same safety share the exact budget keeps.
  const rawHostUnits =
    hostPlan.host.messageUnits === undefined
      ? undefined
      : Math.floor(hostPlan.host.messageUnits * (1 - settings.budget.safetyMarginRatio));
  // When the host's own overhead leaves (almost) nothing for the conversation (2026.8.2 at 32k: system prompt,
  // 85k chars of tool schemas and an appended tool result), no view can avoid its clamp: plan by exact count,
  // so the turn keeps its question and tool results, and say so in the host reading.
  const hostViable = rawHostUnits !== undefined && rawHostUnits >= HOST_MIN_VIABLE_SHARE * messageBudget;
  const hostUnits = hostViable ? rawHostUnits : undefined;
  const charge = dualCurrencyCharge(messageBudget, hostUnits);
  return {
    budget,
    margin,
    messageBudget,
    hostPlan,
    rawHostUnits,
    hostUnits,
    shaping: capInlineOutputs(settings, messageBudget),
    charge: (exactTokens, message) => charge(exactTokens, () => sizeOf(message) / 4),
    hostEstimate: (messages, addition) =>
      hostEstimateOf(hostPlan, messages, addition ? hostChars(addition) : 0, sizeOf),
    hostChars: sizeOf,
    summaryRoom: (keptTokens) => budget.tokens - margin - keptTokens - priming,
  };
}

/** However small the budget, the quoted user messages may take this many chars before any is condensed. */
export const MIN_USER_MESSAGES_CHARS = 6_000;

/**
 * The chars `summary.userMessagesShare` of `budgetTokens` allows the quoted user messages (3 chars a token), at least
 * {@link MIN_USER_MESSAGES_CHARS}.
 */
export function userMessagesChars(settings: Pick<AgentSettings, "summary">, budgetTokens: number): number {
  return Math.max(MIN_USER_MESSAGES_CHARS, Math.floor(settings.summary.userMessagesShare * budgetTokens * 3));
}

/**
 * The chars to reserve for the summary block of `budgetTokens`: `summary.maxInjectedChars`, or what the class's last
 * block took when its quoted user messages made it longer (up to their share of the budget on top).
 */
function summaryBlockChars(settings: AgentSettings, input: AssemblyBudgetInput, budgetTokens: number): number {
  const { maxInjectedChars } = settings.summary;
  const last = input.lastSummaryChars?.(budgetTokens) ?? 0;
  const most = maxInjectedChars + userMessagesChars(settings, budgetTokens);
  return Math.max(maxInjectedChars, Math.min(last, most));
}

/** Settings whose offload thresholds fit the message budget (see {@link AssemblyBudget.shaping}). */
function capInlineOutputs(settings: AgentSettings, messageBudget: number): AgentSettings {
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

/**
 * What one message is charged when its exact tokens are known: the larger of its exact tokens and its host units
 * scaled onto the exact budget. `hostUnits` is only called when a host estimator binds.
 */
export function dualCurrencyCharge(
  exactBudget: number,
  hostBudget: number | undefined,
): (exact: number, hostUnits: () => number) => number {
  if (hostBudget === undefined) return (exact) => exact;
  // No room at all in the host's currency: every message costs more than the whole budget.
  if (hostBudget <= 0) return (exact) => Math.max(exact, exactBudget + 1);
  const scale = exactBudget / hostBudget;
  return (exact, hostUnits) => Math.max(exact, Math.ceil(hostUnits() * scale));
}

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
  /** Weighted chars of one message as the host sizes it. @default hostMessageChars */
  hostChars?: (message: unknown) => number;
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
  /** The prompt budget the host admits, as read from `tokenBudget` (`host/host-budget.ts`). */
  promptBudget: unknown;
}

/** Resolves the line's budgets for one assemble. */
export function resolveHostPlan(input: HostPlanInput): HostPlan {
  const { semantics } = input;
  const read = readHostBudget(semantics, input);
  const { limits, wholeWindow, promptBudget } = read;
  const contextWindow = limits.contextWindow ?? wholeWindow;
  // The transport asks for the model's configured maxTokens; runtimeSettings carry a generic default on some passes.
  const maxOutputTokens =
    limits.maxTokens ??
    read.runtimeMaxOutputTokens ??
    (contextWindow ? Math.min(8_192, Math.floor(contextWindow / 8)) : undefined);
  // Measured by the host (`llm_input`) when granted, else the line's bare-agent figure.
  const overhead = input.overhead ?? semantics.defaultOverhead;
  const livePromptChars = semantics.appendsLivePrompt && typeof input.prompt === "string" ? hostChars(input.prompt) : 0;
  const fixedChars = overhead.systemChars + overhead.toolsChars + livePromptChars + input.summaryChars;
  const exactCeiling =
    wholeWindow && maxOutputTokens && semantics.capsBudgetBelowOutput
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
      promptBudget,
    };
  // The live prompt and (2026.8.x onwards) the current turn's tool result arrive after assemble: both count.
  const appendedChars = livePromptChars + read.appendedResultChars(contextWindow);
  const host = hostMessageBudget(semantics, {
    contextWindow,
    maxOutputTokens,
    systemChars: overhead.systemChars + input.summaryChars,
    toolsChars: overhead.toolsChars,
    livePromptChars: appendedChars,
    replyTokens: Math.min(maxOutputTokens, recentReplyTokens(input.history ?? [], input.hostChars ?? hostMessageChars)),
    memoryFlush: read.memoryFlush,
  });
  // What the host's own estimator multiplies by: the precheck's, else the transport's (the threshold is the provider's
  // count).
  const factor =
    host.rule === "precheck"
      ? (semantics.precheck?.safetyMargin ?? 1)
      : host.rule === "none"
        ? 1
        : (semantics.outputClamp?.safetyMargin ?? 1);
  return { contextWindow, maxOutputTokens, exactCeiling, host, fixedChars, factor, promptBudget };
}

const RECENT_REPLIES = 3;

/** Host units of the largest of the session's last few assistant messages: the size of the reply to expect. */
function recentReplyTokens(history: readonly unknown[], sizeOf: (message: unknown) => number): number {
  let largest = 0;
  let seen = 0;
  for (let i = history.length - 1; i >= 0 && seen < RECENT_REPLIES; i--) {
    if ((history[i] as { role?: unknown } | null)?.role !== "assistant") continue;
    seen++;
    largest = Math.max(largest, Math.ceil(sizeOf(history[i]) / 4));
  }
  return largest;
}

/**
 * What the host will count for what the engine returns (the messages and its system
 * prompt addition), by the binding estimator, rounded up. The host's own system prompt,
 * tool schemas and live prompt are its to count; the plan already left room for them.
 */
export function hostEstimateOf(
  plan: HostPlan,
  messages: readonly unknown[],
  additionChars = 0,
  sizeOf: (message: unknown) => number = hostMessageChars,
): number {
  const chars = messages.reduce<number>((sum, m) => sum + sizeOf(m), additionChars);
  return Math.ceil((chars / 4) * plan.factor);
}
