/**
 * The budget planner: which suffix of the history the prompt keeps.
 *
 * It walks newest to oldest in whole units (a tool call travels with its
 * results) and stops once the window is full, so its cost grows with the
 * budget, not with the history. Between re-plans the window only grows at
 * its end (append-stable, which keeps provider prompt caches warm); a re-plan
 * refills to `refillRatio` of the budget so the next turns have room to append.
 */
import { isUnitBoundary, newestUserIndex, unitEndingAt, type Unit } from "./units.js";

/** The window kept last time. */
export interface PlanAnchor {
  /** Index of the first kept message. */
  start: number;
  /** Fingerprint of that message. */
  anchor: string;
}

/** Inputs of {@link planWindow}. */
export interface PlanWindowOptions {
  /** The (already shaped) history, oldest first. */
  messages: readonly unknown[];
  /** Tokens available for messages (after reserves and margin). */
  budget: number;
  /** Tokens of message `i` (framing included). Called only for visited messages. */
  count: (index: number) => number;
  /** Fingerprint of message `i`, to validate the previous anchor. */
  fingerprint: (index: number) => string;
  /** The previous window, if any. */
  previous?: PlanAnchor | null;
  /**
   * Share of the budget a re-plan fills before it stops.
   * @default 0.9
   */
  refillRatio?: number;
}

/** Why the window is what it is. */
export type PlanReason = "stable" | "replan" | "mandatory-only";

/** The planner's answer. */
export interface WindowPlan {
  /** Indices of kept messages, ascending. */
  kept: number[];
  /** First index of the window (messages before it left the prompt). */
  start: number;
  /** Exact tokens of the kept messages. */
  tokens: number;
  /** True when the window was planned anew (the anchor moved). */
  replanned: boolean;
  reason: PlanReason;
  /** Indices inside the window left out because their tool pairing is broken. */
  excluded: number[];
  /** Index of the newest genuine user message, or -1. */
  newestUser: number;
  /** True when the mandatory part (newest user turn onward) alone exceeds the budget. */
  overBudget: boolean;
}

/** Plans the kept window. Pure and deterministic. */
export function planWindow(options: PlanWindowOptions): WindowPlan {
  const { messages, budget, count } = options;
  const n = messages.length;
  const newestUser = newestUserIndex(messages);
  const stable = tryStableWindow(options, newestUser);
  if (stable) return stable;

  const refill = Math.max(0, Math.min(1, options.refillRatio ?? 0.9)) * budget;
  const kept: number[] = [];
  const excluded: number[] = [];
  let tokens = 0;
  let end = n;
  let start = n;
  let overBudget = false;
  while (end > 0) {
    const unit = unitEndingAt(messages, end);
    const mandatory = newestUser >= 0 && unit.end > newestUser;
    if (!unit.valid) {
      pushDescending(excluded, unit);
    } else {
      const cost = unitCost(unit, count);
      if (tokens + cost > budget) {
        if (!mandatory) break;
        overBudget = true;
        return mandatoryOnly(options, newestUser);
      }
      tokens += cost;
      pushDescending(kept, unit);
    }
    start = unit.start;
    end = unit.start;
    if (!mandatory && tokens >= refill) break;
  }
  kept.reverse();
  excluded.reverse();
  return { kept, start, tokens, replanned: true, reason: "replan", excluded, newestUser, overBudget };
}

function tryStableWindow(options: PlanWindowOptions, newestUser: number): WindowPlan | undefined {
  const { messages, budget, count, previous } = options;
  const n = messages.length;
  if (!previous || previous.start < 0 || previous.start >= n) return undefined;
  if (!isUnitBoundary(messages, previous.start)) return undefined;
  if (options.fingerprint(previous.start) !== previous.anchor) return undefined;
  if (newestUser >= 0 && newestUser < previous.start) return undefined;
  const kept: number[] = [];
  const excluded: number[] = [];
  let tokens = 0;
  let end = n;
  while (end > previous.start) {
    const unit = unitEndingAt(messages, end);
    if (unit.start < previous.start) return undefined;
    if (!unit.valid) {
      pushDescending(excluded, unit);
    } else {
      tokens += unitCost(unit, count);
      if (tokens > budget) return undefined;
      pushDescending(kept, unit);
    }
    end = unit.start;
  }
  kept.reverse();
  excluded.reverse();
  return { kept, start: previous.start, tokens, replanned: false, reason: "stable", excluded, newestUser, overBudget: false };
}

/**
 * The newest user turn does not fit whole: keep the user message and the
 * newest valid units after it that still fit. The caller reduces oversized
 * parts losslessly before planning; this is the last resort.
 */
function mandatoryOnly(options: PlanWindowOptions, newestUser: number): WindowPlan {
  const { messages, budget, count } = options;
  const userTokens = count(newestUser);
  const tail: number[] = [];
  const excluded: number[] = [];
  let tokens = userTokens;
  let end = messages.length;
  while (end > newestUser + 1) {
    const unit = unitEndingAt(messages, end);
    if (unit.start <= newestUser) break;
    if (!unit.valid) {
      pushDescending(excluded, unit);
    } else {
      const cost = unitCost(unit, count);
      if (tokens + cost > budget) {
        pushDescending(excluded, unit);
        // Older units between the user turn and this one would leave a gap; drop them too.
        for (let i = unit.start - 1; i > newestUser; i--) excluded.push(i);
        break;
      }
      tokens += cost;
      pushDescending(tail, unit);
    }
    end = unit.start;
  }
  tail.reverse();
  excluded.sort((a, b) => a - b);
  return {
    kept: [newestUser, ...tail],
    start: newestUser,
    tokens,
    replanned: true,
    reason: "mandatory-only",
    excluded,
    newestUser,
    overBudget: userTokens > budget,
  };
}

function unitCost(unit: Unit, count: (index: number) => number): number {
  let cost = 0;
  for (let i = unit.start; i < unit.end; i++) cost += count(i);
  return cost;
}

// The walk goes newest to oldest; indices are pushed descending and reversed once at the end.
function pushDescending(into: number[], unit: Unit): void {
  for (let i = unit.end - 1; i >= unit.start; i--) into.push(i);
}
