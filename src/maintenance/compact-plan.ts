import type { AgentSettings } from "../config/schema.js";
import { fingerprintMessage, isGenuineUserMessage } from "../host/messages.js";
import type { LastView } from "../runtime/services.js";
import type { TokenCounter } from "../tokens/count-message.js";
import { planWindow, type WindowPlan } from "../window/planner.js";

/**
 * Share of the budget the window keeps after a forced compaction (`/compact`,
 * overflow recovery): like the host's own compaction, only the recent turns
 * stay verbatim; everything older moves into the summary and a checkpoint pack.
 */
const FORCED_REFILL = 0.25;

/** The last view as compaction plans over it: the same charge per message the assembly planned with. */
export interface CompactionWindow {
  messages: readonly unknown[];
  messageBudget: number;
  /** What message `i` was charged. */
  cost(index: number): number;
  /** The charge of every message from `start` on. */
  tokensFrom(start: number): number;
  /** Plans a window of `target` tokens under `budget` (the view's message budget by default). */
  planTo(target: number, budget?: number): WindowPlan;
}

/** The window compaction plans over, from the last assembled view. */
export function compactionWindow(view: LastView, counter: TokenCounter): CompactionWindow {
  const messages = view.messages;
  const messageBudget = Math.max(1, Math.floor(view.messageBudget));
  // The same charge the assembly planned with: where the host's estimator binds, exact counts alone would
  // reach back past the assembled window and find "nothing to reduce".
  const cost = view.cost ?? ((i: number) => counter.countMessage(view.shape(i)));
  return {
    messages,
    messageBudget,
    cost,
    tokensFrom(start) {
      let sum = 0;
      for (let i = start; i < messages.length; i++) sum += cost(i);
      return sum;
    },
    planTo: (target, budget = messageBudget) =>
      planWindow({
        messages,
        budget,
        count: cost,
        fingerprint: (i) => fingerprintMessage(messages[i]),
        previous: null,
        target,
      }),
  };
}

/** What decides how deep a compaction cuts (see `CompactInput`). */
export interface CompactionAsk {
  force: boolean;
  manual?: boolean;
  skipReasonText?: string;
  keepFrom?: string;
}

/**
 * The window a compaction would keep: from the caller's user message when it names one later than the view's start,
 * else the refill share (a quarter when forced, three quarters otherwise), cut to the newest turn alone when a forced
 * compaction would otherwise keep what the view already holds.
 */
export function planCompaction(window: CompactionWindow, view: LastView, ask: CompactionAsk): WindowPlan {
  const { messages, messageBudget, tokensFrom, planTo } = window;
  // Keeping from a given user message: a budget of exactly what follows it, so the walk cannot take one unit more.
  const keepAt = ask.keepFrom ? messages.findLastIndex((m) => fingerprintMessage(m) === ask.keepFrom) : -1;
  const keepTokens = keepAt > view.start && isGenuineUserMessage(messages[keepAt]) ? tokensFrom(keepAt) : undefined;
  if (keepTokens !== undefined) return planTo(keepTokens, Math.max(1, keepTokens));
  const plan = planTo(ask.force ? FORCED_REFILL * messageBudget : 0.75 * messageBudget);
  // A forced compaction reduces whenever the window holds anything before the newest user turn: a window
  // already under the refill share (2026.9.6 plans under its smallest budget class) keeps only that turn.
  // A host-required preflight on lines that read "nothing to compact" as "run the model" (5.28-9.x) is not
  // a request to shrink a window that fits: there the turn goes on as is. A manual compaction always is.
  if (
    ask.force &&
    (ask.manual === true || !ask.skipReasonText) &&
    plan.start <= view.start &&
    plan.newestUser > view.start
  ) {
    const newestTurn = tokensFrom(plan.newestUser);
    // A budget of exactly the newest turn: the walk cannot take one unit more.
    if (newestTurn <= messageBudget) return planTo(newestTurn, newestTurn);
  }
  return plan;
}

/** True when the view is already under the share at which a summary is due, so an unforced call has nothing to do. */
export function withinTarget(settings: AgentSettings, view: LastView, budget: number): boolean {
  return view.tokens <= budget * settings.summary.injectAtShare;
}
