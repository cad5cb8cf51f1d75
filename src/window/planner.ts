/**
 * The budget planner: which part of the history the prompt keeps.
 *
 * It walks newest to oldest in whole units (a tool call travels with its
 * results) and stops once the window reaches its target, so its cost grows
 * with the budget, not with the history. Between re-plans the window only
 * grows at its end (append-stable, which keeps provider prompt caches warm);
 * a re-plan fills to `target` so the next turns have room to append, and a
 * kept window that fell below `lowWater` of the budget is re-planned upward
 * (one cache miss traded for a full window). A window starts at a user
 * message: providers reject or mis-read a prompt that opens with an
 * assistant turn or a tool result.
 */
import { isGenuineUserMessage, roleOf } from "../host/messages.js";
import { isUnitBoundary, newestUserIndex, unitEndingAt, type Unit } from "./units.js";

/** The window kept last time. */
export interface PlanAnchor {
  /** Index of the first kept message. */
  start: number;
  /** Fingerprint of that message. */
  anchor: string;
  /** Index where the kept run resumes after a gap (`start` itself, or absent, when there is none). */
  resume?: number;
  /** Fingerprint of message `resume` when there is a gap. */
  resumeAnchor?: string;
  /**
   * Fingerprint of message `start - 1` when the window was kept empty ("" when `start` is 0): `start` was then the
   * list's length, so its own first message did not exist yet (`anchor` is empty). The turns appended after that
   * message extend it.
   */
  before?: string;
}

/** Inputs of {@link planWindow}. */
export interface PlanWindowOptions {
  /** The (already shaped) history, oldest first. */
  messages: readonly unknown[];
  /** Tokens available for messages (after reserves and margin). */
  budget: number;
  /** Tokens of message `i` (framing included). Called only for visited messages. */
  count: (index: number) => number;
  /**
   * Tokens of message `i` as a re-plan would shape it (older tool results
   * cleared at a new boundary); defaults to `count`.
   */
  replanCount?: (index: number) => number;
  /** Fingerprint of message `i`, to validate the previous anchor. */
  fingerprint: (index: number) => string;
  /** Index of the newest genuine user message (-1: none), when the caller already found it. */
  newestUser?: number;
  /** The previous window, if any. */
  previous?: PlanAnchor | null;
  /**
   * Share of the budget a re-plan fills before it stops (used when `target` is absent).
   * @default 0.9
   */
  refillRatio?: number;
  /** Tokens a re-plan fills before it stops (clamped to the budget); overrides `refillRatio`. */
  target?: number;
  /**
   * A kept window below this share of the budget is re-planned when older
   * history could fill it (hysteresis against windows planned under a smaller budget).
   * @default 0 (never)
   */
  lowWater?: number;
  /**
   * A re-plan keeps no message: the newest turn of `messages` is finished and the live one travels outside them
   * (assemble's `prompt`), so the window opens at the list's end and the next turns extend it. The caller sets it
   * when keeping even the newest finished turn would leave no room for the next one.
   * @default false
   */
  keepNoTurn?: boolean;
}

/** Why the window is what it is. */
export type PlanReason = "stable" | "replan" | "refill" | "mandatory-only";

/** The planner's answer. */
export interface WindowPlan {
  /** Indices of kept messages, ascending. */
  kept: number[];
  /** First index of the window (messages before it left the prompt). */
  start: number;
  /** Where the kept run resumes after the first message (`start` when the window has no gap). */
  resume: number;
  /** Exact tokens of the kept messages. */
  tokens: number;
  /** True when the window was planned anew (the anchor moved). */
  replanned: boolean;
  /** True when a re-plan counted with `replanCount` (the caller's fresh shaping), false when with `count`. */
  recounted: boolean;
  reason: PlanReason;
  /** Indices inside the window left out (broken tool pairing, or the gap after `start`). */
  excluded: number[];
  /** Index of the newest genuine user message, or -1. */
  newestUser: number;
  /** True when the mandatory part (newest user turn onward) alone exceeds the budget. */
  overBudget: boolean;
}

/** Plans the kept window. Pure and deterministic. */
export function planWindow(options: PlanWindowOptions): WindowPlan {
  return openWithUser(options, planKept(options));
}

function planKept(options: PlanWindowOptions): WindowPlan {
  const newestUser = options.newestUser ?? newestUserIndex(options.messages);
  const stable = tryStableWindow(options, newestUser);
  const lowWater = Math.max(0, Math.min(1, options.lowWater ?? 0)) * options.budget;
  if (stable && (stable.tokens >= lowWater || stable.start === 0)) return stable;
  const fresh = freshPlan(options, newestUser);
  if (!stable) return fresh;
  // Hysteresis: give up the stable window only for one that reaches further back.
  return fresh.start < stable.start && fresh.tokens > stable.tokens ? { ...fresh, reason: "refill" } : stable;
}

/**
 * The one place a window is made to open with a user message. With a genuine user
 * message in the history the walk already ends at one (see {@link startAtUser}); what
 * is left is a history with none (only the host's internal-context carriers) or a kept
 * list whose first message was left out: the kept messages before the first kept user
 * message go, and when none is kept (a tool loop whose user message left the window)
 * the newest user message before the window is put back in front, so the turn keeps
 * the question it answers. `start` and the anchors stay as planned.
 */
function openWithUser(options: PlanWindowOptions, plan: WindowPlan): WindowPlan {
  const { messages } = options;
  const first = plan.kept[0];
  if (first === undefined || roleOf(messages[first]) === "user") return plan;
  const count = plan.recounted && options.replanCount ? options.replanCount : options.count;
  const userAt = plan.kept.findIndex((i) => roleOf(messages[i]) === "user");
  if (userAt > 0) {
    const dropped = plan.kept.slice(0, userAt);
    return { ...plan, kept: plan.kept.slice(userAt), tokens: plan.tokens - dropped.reduce((t, i) => t + count(i), 0) };
  }
  for (let i = first - 1; i >= 0; i--) {
    if (roleOf(messages[i]) === "user") return { ...plan, kept: [i, ...plan.kept], tokens: plan.tokens + count(i) };
  }
  return plan;
}

/**
 * A re-plan, shaped by `replanCount` when given (older results cleared) unless
 * the whole cleared history stays under the target: then clearing would only
 * empty the prompt, and the results stay in full.
 */
function freshPlan(options: PlanWindowOptions, newestUser: number): WindowPlan {
  if (!options.replanCount) return replan(options, newestUser);
  const cleared = replan({ ...options, count: options.replanCount }, newestUser);
  if (cleared.start > 0 || cleared.tokens >= targetOf(options) || cleared.reason === "mandatory-only")
    return { ...cleared, recounted: true };
  return replan(options, newestUser);
}

function targetOf(options: PlanWindowOptions): number {
  return Math.min(
    options.budget,
    Math.max(0, options.target ?? Math.max(0, Math.min(1, options.refillRatio ?? 0.9)) * options.budget),
  );
}

function replan(options: PlanWindowOptions, newestUser: number): WindowPlan {
  const { messages, budget, count } = options;
  if (options.keepNoTurn) return emptyPlan(messages.length, newestUser);
  const target = targetOf(options);
  const kept: number[] = [];
  const excluded: number[] = [];
  let tokens = 0;
  let end = messages.length;
  let start = messages.length;
  while (end > 0) {
    const unit = unitEndingAt(messages, end);
    const mandatory = newestUser >= 0 && unit.end > newestUser;
    if (!unit.valid) {
      pushDescending(excluded, unit);
    } else {
      const cost = unitCost(unit, count);
      if (tokens + cost > budget) {
        if (!mandatory) break;
        return mandatoryOnly(options, newestUser);
      }
      tokens += cost;
      pushDescending(kept, unit);
    }
    start = unit.start;
    end = unit.start;
    if (!mandatory && tokens >= target) break;
  }
  kept.reverse();
  excluded.reverse();
  const plan: WindowPlan = {
    kept,
    start,
    resume: start,
    tokens,
    replanned: true,
    recounted: false,
    reason: "replan",
    excluded,
    newestUser,
    overBudget: false,
  };
  return newestUser >= 0 && start < messages.length && !isGenuineUserMessage(messages[start])
    ? startAtUser(options, plan)
    : plan;
}

/**
 * The walk stopped inside a turn. In order of preference: complete the turn
 * back to its user message if that still fits the budget; else keep that user
 * message ahead of a gap (the turn's newest units follow it); else begin at
 * the next user message.
 */
function startAtUser(options: PlanWindowOptions, plan: WindowPlan): WindowPlan {
  const { messages, budget, count } = options;
  let u = plan.start - 1;
  while (u >= 0 && !isGenuineUserMessage(messages[u])) u--;
  if (u >= 0) {
    const extra: number[] = [];
    const broken: number[] = [];
    let tokens = plan.tokens;
    let end = plan.start;
    while (end > u && tokens <= budget) {
      const unit = unitEndingAt(messages, end);
      if (unit.start < u) break;
      if (!unit.valid) pushDescending(broken, unit);
      else {
        tokens += unitCost(unit, count);
        pushDescending(extra, unit);
      }
      end = unit.start;
    }
    if (end === u && tokens <= budget) {
      return {
        ...plan,
        kept: [...extra.reverse(), ...plan.kept],
        excluded: [...broken.reverse(), ...plan.excluded],
        start: u,
        resume: u,
        tokens,
      };
    }
    // Keep the turn's user message ahead of a gap, dropping the oldest kept units until it fits.
    const head = count(u);
    let r = plan.start;
    let left = plan.tokens;
    while (left + head > budget && !isGenuineUserMessage(messages[r])) {
      let next = r + 1;
      while (next < messages.length && !isUnitBoundary(messages, next)) next++;
      if (next > plan.newestUser) break;
      for (const i of plan.kept) if (i >= r && i < next) left -= count(i);
      r = next;
    }
    if (isGenuineUserMessage(messages[r])) return fromIndex(plan, r, count);
    if (left + head <= budget) {
      const gap = Array.from({ length: r - u - 1 }, (_, i) => u + 1 + i);
      return {
        ...plan,
        kept: [u, ...plan.kept.filter((i) => i >= r)],
        excluded: [...gap, ...plan.excluded.filter((i) => i >= r)],
        start: u,
        resume: r,
        tokens: left + head,
      };
    }
  }
  // Neither fits: the window begins at the next user message (the newest one at the latest).
  let s = plan.start;
  while (s < messages.length && !isGenuineUserMessage(messages[s])) s++;
  return fromIndex(plan, s, count);
}

/** A window that keeps nothing yet: it opens at `at`, the end of the list. */
function emptyPlan(at: number, newestUser: number): WindowPlan {
  return {
    kept: [],
    start: at,
    resume: at,
    tokens: 0,
    replanned: true,
    recounted: false,
    reason: "replan",
    excluded: [],
    newestUser,
    overBudget: false,
  };
}

/** `plan` without the messages before `s`. */
function fromIndex(plan: WindowPlan, s: number, count: (index: number) => number): WindowPlan {
  const dropped = plan.kept.filter((i) => i < s);
  const tokens = plan.tokens - dropped.reduce((sum, i) => sum + count(i), 0);
  return {
    ...plan,
    kept: plan.kept.filter((i) => i >= s),
    excluded: plan.excluded.filter((i) => i >= s),
    start: s,
    resume: s,
    tokens,
  };
}

function tryStableWindow(options: PlanWindowOptions, newestUser: number): WindowPlan | undefined {
  const { messages, budget, count, previous, fingerprint } = options;
  const n = messages.length;
  if (!previous || previous.start < 0 || previous.start > n) return undefined;
  if (previous.before !== undefined) {
    if (!emptyWindowHolds(options, previous, previous.before, newestUser)) return undefined;
  } else {
    if (previous.start === n) return undefined;
    if (!isUnitBoundary(messages, previous.start) || fingerprint(previous.start) !== previous.anchor) return undefined;
    if (newestUser >= 0 && (newestUser < previous.start || !isGenuineUserMessage(messages[previous.start])))
      return undefined;
  }
  const resume =
    previous.before === undefined && previous.resume !== undefined && previous.resume > previous.start
      ? previous.resume
      : previous.start;
  if (resume > previous.start) {
    if (resume >= n || !isUnitBoundary(messages, resume) || fingerprint(resume) !== previous.resumeAnchor)
      return undefined;
    if (newestUser >= 0 && newestUser > previous.start && newestUser < resume) return undefined;
  }
  const kept: number[] = [];
  const excluded: number[] = [];
  let tokens = resume > previous.start ? count(previous.start) : 0;
  let end = n;
  while (end > resume) {
    const unit = unitEndingAt(messages, end);
    if (unit.start < resume) return undefined;
    if (!unit.valid) {
      pushDescending(excluded, unit);
    } else {
      tokens += unitCost(unit, count);
      if (tokens > budget) return undefined;
      pushDescending(kept, unit);
    }
    end = unit.start;
  }
  if (tokens > budget) return undefined;
  if (resume > previous.start) {
    for (let i = resume - 1; i > previous.start; i--) excluded.push(i);
    kept.push(previous.start);
  }
  kept.reverse();
  excluded.reverse();
  return {
    kept,
    start: previous.start,
    resume,
    tokens,
    replanned: false,
    recounted: false,
    reason: "stable",
    excluded,
    newestUser,
    overBudget: false,
  };
}

/**
 * A window kept empty still stands when the message before it is the one it followed (or it opened the list) and
 * what came after opens with a user message; with nothing after it yet, only while the caller still keeps no turn.
 */
function emptyWindowHolds(
  options: PlanWindowOptions,
  previous: PlanAnchor,
  before: string,
  newestUser: number,
): boolean {
  const { messages, fingerprint } = options;
  if (previous.start === 0 ? before !== "" : fingerprint(previous.start - 1) !== before) return false;
  if (previous.start === messages.length) return previous.start === 0 || options.keepNoTurn === true;
  return isGenuineUserMessage(messages[previous.start]) && newestUser >= previous.start;
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
        // Older units between the user turn and this one would leave a second gap; drop them too.
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
    resume: tail[0] !== undefined && tail[0] > newestUser + 1 ? tail[0] : newestUser,
    tokens,
    replanned: true,
    recounted: false,
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
