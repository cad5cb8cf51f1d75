import { LRUCache } from "lru-cache";
import type { AgentSettings } from "../config/schema.js";
import { HOST_LINES, NEWEST_HOST_LINE, type HostLineSemantics } from "../host/host-lines.js";
import { hasToolCall, isSummaryMessage, roleOf, withoutOperatorMessages } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { stateSlot } from "../runtime/state-slots.js";
import type { TokenCounter } from "./ports.js";
import { resolveAssemblyBudget, type AssemblyBudget } from "./budget.js";
import type { AssembleViewInput } from "./assemble-input.js";

/** The steps of an assemble that await: pending captures, session state, the user-turn reduction, stores, summary. */
export type AssemblyWaits = Partial<Record<"captures" | "state" | "reduce" | "store" | "summary", number>>;

/** What every step of one assemble call reads: the history, the counter and the budget, resolved once. */
export interface AssemblyCall {
  identity: SessionIdentity;
  /** The history as the host passed it (the debt measures it as stored). */
  history: unknown[];
  /** The history the model is shown: without operator exchanges. */
  messages: unknown[];
  counter: TokenCounter;
  /** What the provider adds once per request to prime the reply (the counter knows its format). */
  replyPrimingTokens: number;
  resolved: AssemblyBudget;
  /**
   * The live user turn travels outside the history (the host appends assemble's `prompt` after the view) and the
   * history's newest turn is finished: a re-plan may then keep fewer whole turns (see `planElasticWindow`).
   */
  liveTurnOutside: boolean;
  /**
   * The history is a view this engine returned, handed back inside a turn (2026.9.x passes the turn's first view to
   * its in-loop calls): it carries the summary message in front.
   */
  handedBack: boolean;
  /** Wall time spent awaiting, per step (ms). */
  waits: AssemblyWaits;
  /** Awaits `work`, adding its wall time to `step`. */
  waited<T>(step: keyof AssemblyWaits, work: Promise<T>): Promise<T>;
}

/** What opening a call uses: the token counter and the host-size memo. */
export type AssemblyCallDeps = Pick<LedgerServices, "counter" | "state">;

/** Sessions whose quoted user messages' size the next plan reserves room for. */
const MAX_SUMMARY_BLOCK_SESSIONS = 1_024;

/**
 * Per session and budget class, the chars the last summary block took (written after each summary, read by the next
 * plan: see `resolveAssemblyBudget`).
 */
export const SUMMARY_BLOCK_CHARS = stateSlot(
  "summary:block-chars",
  () => new LRUCache<string, number>({ max: MAX_SUMMARY_BLOCK_SESSIONS }),
);

/**
 * The key of a session's budget class in {@link SUMMARY_BLOCK_CHARS}: budgets within ×1.25 share one, as windows do, so
 * a host's small in-turn call does not move the reserve of the turn's main one.
 */
export function summaryBlockKey(
  identity: Pick<SessionIdentity, "agentId" | "sessionKey">,
  budgetTokens: number,
): string {
  const budgetClass = Math.floor(Math.log(Math.max(1, budgetTokens)) / Math.log(1.25));
  return `${identity.agentId}\u0000${identity.sessionKey}\u0000${budgetClass}`;
}

// Each message's size as the host's estimator counts it, per message object.
const HOST_CHARS = stateSlot("host:chars", () => new WeakMap<object, number>());

/** Resolves what one assemble call reads: the shown history, its counter, the budget in one pass. */
export function openAssemblyCall(
  deps: AssemblyCallDeps,
  settings: AgentSettings,
  input: AssembleViewInput,
): AssemblyCall {
  const history = Array.isArray(input.messages) ? (input.messages as unknown[]) : [];
  const messages = withoutOperatorMessages(history);
  const handedBack = [history[0], history[1]].some(isSummaryMessage);
  const counter = deps.counter(settings, typeof input.model === "string" ? input.model : undefined);
  const replyPrimingTokens = counter.countMessages([]);
  const semantics = input.semantics ?? HOST_LINES[input.generation ?? NEWEST_HOST_LINE];
  const resolved = resolveAssemblyBudget(settings, {
    ...input,
    semantics,
    messages,
    replyPrimingTokens,
    hostCharsMemo: deps.state.get(HOST_CHARS),
    lastSummaryChars: (budgetTokens) =>
      deps.state.get(SUMMARY_BLOCK_CHARS).get(summaryBlockKey(input.identity, budgetTokens)) ?? 0,
  });
  const waits: AssemblyWaits = {};
  const waited = async <T>(step: keyof AssemblyWaits, work: Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work;
    } finally {
      waits[step] = (waits[step] ?? 0) + performance.now() - started;
    }
  };
  return {
    identity: input.identity,
    history,
    messages,
    counter,
    replyPrimingTokens,
    resolved,
    liveTurnOutside: !handedBack && liveTurnOutside(semantics, input.prompt, messages),
    handedBack,
    waits,
    waited,
  };
}

/**
 * The host appends the live turn after the view and the history's newest turn ends with an answer (not a tool call
 * or result). Never asked of a view handed back inside a turn: that list must stay the turn's first view.
 */
function liveTurnOutside(semantics: HostLineSemantics, prompt: unknown, messages: readonly unknown[]): boolean {
  if (!semantics.appendsLivePrompt || typeof prompt !== "string" || prompt.trim() === "") return false;
  const last = messages.at(-1);
  return roleOf(last) === "assistant" && !hasToolCall(last);
}
