/**
 * One kept window per budget class. Hosts assemble the same history under
 * very different budgets (2026.9.6's tool loop: 17,055 / 31,950 / 6,871 in one
 * request); with a single anchor the smallest call re-plans the window and the
 * main call inherits it. Each class keeps its own anchor, so each stays
 * append-stable and full for its own budget. Pure data in, data out.
 */
import type { PlanAnchor, WindowPlan } from "./planner.js";

/** A kept window of one budget class, persisted in the session state. */
export interface WindowAnchor extends PlanAnchor {
  /** Message budget the window was planned for. */
  budget: number;
  /** Transcript length when the window was last used. */
  total: number;
  /** Tokens of the window when last used. */
  tokens: number;
  /** Tool results before this index are cleared while the window stands (-1: none). */
  clearBefore: number;
  /** Observed growth of the window per call, in tokens (moving average); 0 while unknown. */
  growth: number;
  /** Use counter, for evicting the least recently used class. */
  used: number;
  /** Set by a compaction: the window is not refilled upward until it has to be re-planned. */
  pinned?: boolean;
  /** Fingerprint of the newest message when the window was last used (tells a front cut from a rewrite). */
  tail?: string;
}

/** Budgets within this factor of each other share a window. */
const BUDGET_CLASS_FACTOR = 1.25;
/** Budget classes remembered per session. */
const MAX_WINDOW_CLASSES = 4;

/** The anchor of the class `budget` belongs to, if any is usable for a transcript of `total` messages. */
export function pickAnchor(anchors: readonly WindowAnchor[], budget: number, total: number): WindowAnchor | undefined {
  let best: WindowAnchor | undefined;
  let bestDistance = Math.log(BUDGET_CLASS_FACTOR);
  for (const a of anchors) {
    if (a.total > total || a.budget <= 0 || budget <= 0) continue;
    const distance = Math.abs(Math.log(budget / a.budget));
    if (distance <= bestDistance) {
      best = a;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Finds where a remembered window's first message sits now. Some hosts pass only
 * a tail of a long transcript (2026.9.6 drops whole turns from the front once the
 * session is large), so every index moves down by the number dropped while the
 * messages themselves stay. Searches down from the remembered index for the
 * anchor's fingerprint and answers the shift (0: unchanged), or undefined when
 * the message is gone (rewrite, rewind, reset: the caller re-plans).
 * Linear in `start` at worst; one fingerprint when nothing moved.
 */
export function frontShift(
  start: number,
  anchor: string,
  total: number,
  fingerprint: (index: number) => string,
): number | undefined {
  for (let i = Math.min(start, total - 1); i >= 0; i--) if (fingerprint(i) === anchor) return start - i;
  return undefined;
}

/**
 * The anchor moved down by `shift` messages (see {@link frontShift}): every index it
 * holds, and the transcript length it was used at, move with it.
 */
export function shiftAnchor(a: WindowAnchor, shift: number): WindowAnchor {
  if (shift === 0) return a;
  return {
    ...a,
    start: a.start - shift,
    ...(a.resume !== undefined ? { resume: a.resume - shift } : {}),
    total: a.total - shift,
    clearBefore: a.clearBefore < 0 ? a.clearBefore : Math.max(-1, a.clearBefore - shift),
  };
}

/** Inputs of {@link replanTarget}. */
export interface ReplanTargetOptions {
  /** Message budget of this call. */
  budget: number;
  /** Fewest tokens a re-plan may fill, at most `budget`. */
  floor: number;
  /** Most tokens a re-plan fills (`refillRatio` of the budget). */
  ceiling: number;
  /** Observed growth per call (tokens); 0 while unknown. */
  growth: number;
  /** Price of a prompt token sent uncached over one read from the provider's prefix cache. */
  priceRatio: number;
  /** Tokens a re-plan frees at least. */
  minHeadroom: number;
}

/**
 * Tokens a re-plan fills, by cost. A re-plan sends the kept window of V tokens uncached once
 * (ρ times the price of a cached read); each later call appends the session's growth g to a cached
 * prefix, until the window reaches the budget B after (B − V) / g calls. The window is kept as
 * deep as keeps that one uncached send, spread over those calls (ρ·g·V / (B − V) per call), no
 * dearer than reading the cached window costs per call on average ((B + V) / 2):
 * V = √((ρg)² + B²) − ρg. With ρ = 10 and g = 1,000: B = 13,000 gives 6,200 (48%), B = 100,000
 * gives 90,500. A shallower cut re-plans more often and pays the uncached send more often; a
 * deeper one reads less history. Never below the floor, never above the ceiling nor `minHeadroom`
 * short of the budget; the ceiling while growth is unknown.
 */
export function replanTarget(costs: ReplanTargetOptions): number {
  const { budget, ceiling, growth, priceRatio, minHeadroom } = costs;
  const growthPrice = priceRatio * growth;
  const byCost = growth > 0 ? Math.sqrt(growthPrice * growthPrice + budget * budget) - growthPrice : ceiling;
  const floor = Math.min(costs.floor, budget);
  return Math.round(Math.max(floor, Math.min(ceiling, budget - minHeadroom, byCost)));
}

/** What {@link recordWindow} needs to know about the call. */
export interface RecordWindowInput {
  plan: WindowPlan;
  budget: number;
  total: number;
  clearBefore: number;
  /** Fingerprint of message `i` of the current transcript. */
  fingerprint: (index: number) => string;
  /** Keep the window from being refilled upward (it left room on purpose). */
  pin?: boolean;
}

/**
 * The anchors after this call: the call's class updated (or added, evicting
 * the least recently used), its growth averaged over stable calls.
 */
export function recordWindow(
  anchors: readonly WindowAnchor[],
  previous: WindowAnchor | undefined,
  input: RecordWindowInput,
): WindowAnchor[] {
  const { plan, budget, total } = input;
  const others = anchors.filter((a) => a !== previous);
  const used = anchors.reduce((m, a) => Math.max(m, a.used), 0) + 1;
  // An empty window is remembered by the message it follows, so the turns appended after it extend it.
  const empty = plan.kept.length === 0;
  if (empty && plan.start !== total) return others;
  // Growth is a property of the session, not of the class: a new class starts from what the others saw.
  let growth = previous?.growth ?? others.reduce((m, a) => Math.max(m, a.growth), 0);
  if (previous && !plan.replanned && total > previous.total) {
    const delta = Math.max(0, plan.tokens - previous.tokens);
    growth = growth > 0 ? Math.round(0.7 * growth + 0.3 * delta) : delta;
  }
  const anchor: WindowAnchor = {
    start: plan.start,
    anchor: empty ? "" : input.fingerprint(plan.start),
    ...(empty ? { before: plan.start > 0 ? input.fingerprint(plan.start - 1) : "" } : {}),
    ...(plan.resume > plan.start ? { resume: plan.resume, resumeAnchor: input.fingerprint(plan.resume) } : {}),
    budget: previous && !plan.replanned ? previous.budget : budget,
    total,
    tokens: plan.tokens,
    clearBefore: input.clearBefore,
    growth,
    used,
    ...((previous?.pinned && !plan.replanned) || input.pin ? { pinned: true } : {}),
    ...(total > 0 ? { tail: input.fingerprint(total - 1) } : {}),
  };
  const next = [...others, anchor];
  if (next.length > MAX_WINDOW_CLASSES) next.sort((a, b) => b.used - a.used).splice(MAX_WINDOW_CLASSES);
  return next;
}
