/**
 * The window of one assemble call: picks the anchor of the call's budget
 * class, sizes a re-plan from the session's observed growth, fixes where old
 * tool results are cleared, and plans once. Pure: state and settings in, plan out.
 */
import type { AgentSettings } from "../config/schema.js";
import { hostMessageChars } from "../host/host-estimate.js";
import { fingerprintMessage, isGenuineUserMessage } from "../host/messages.js";
import { toolNamesMatcher } from "../config/tool-glob.js";
import { clearBoundary } from "./clear-boundary.js";
import { planWindow, type WindowPlan } from "./planner.js";
import { frontShift, pickAnchor, replanTarget, shiftAnchor, type WindowAnchor } from "./window-anchors.js";

/** Inputs of {@link planElasticWindow}. */
export interface ElasticWindowInput {
  messages: readonly unknown[];
  /** The host's prompt budget (what the low-water mark is a share of). */
  hostBudget: number;
  /** Tokens available for messages. */
  messageBudget: number;
  /** Index of the newest genuine user message, or -1. */
  newestUser: number;
  /** Tokens of message `i` when tool results before `clearBefore` are cleared (-1: none). */
  count: (index: number, clearBefore: number) => number;
}

/** The plan and what to remember of it. */
export interface ElasticWindow {
  plan: WindowPlan;
  /** Tool results before this index are cleared in the returned view (-1: none). */
  clearBefore: number;
  /** Tokens a re-plan filled to. */
  target: number;
  /** The session's anchors as read (legacy frontier or compaction adopted). */
  anchors: WindowAnchor[];
  /** The anchor of this call's class, if one was used. */
  previous: WindowAnchor | undefined;
  /** The window left room against the host's front cuts on purpose: record it pinned (no refill). */
  pin: boolean;
}

/** What a session remembers of its windows (the session state satisfies it; window/ stays free of state/). */
export interface WindowState {
  windows?: readonly WindowAnchor[];
  frontier: { start: number; anchor: string; total: number } | null;
}

/** Plans the window of one assemble call (see the module comment). */
export function planElasticWindow(
  state: WindowState,
  settings: AgentSettings,
  input: ElasticWindowInput,
): ElasticWindow {
  const { messages, messageBudget, newestUser } = input;
  const { anchors, previous, hostCut } = locateAnchor(anchorsOf(state, messageBudget), messageBudget, messages);
  const stableClear = previous?.clearBefore ?? -1;
  // The newest turns are kept at any window; a large window also keeps the low-water share of its budget.
  const newestTurns = tokensFrom(newestTurnsStart(messages, KEPT_TURNS), messages.length, (i) =>
    input.count(i, stableClear),
  );
  const fillFloor =
    input.hostBudget >= FILL_FLOOR_FROM_BUDGET ? Math.ceil(settings.budget.lowWaterRatio * input.hostBudget) : 0;
  const floor = Math.min(messageBudget, Math.max(newestTurns, fillFloor));
  const growth = previous?.growth ?? anchors.reduce((m, a) => Math.max(m, a.growth), 0);
  const target = replanTarget({
    budget: messageBudget,
    floor,
    ceiling: Math.max(floor, settings.budget.refillRatio * messageBudget),
    growth,
    priceRatio: settings.budget.cachePriceRatio,
    // The room a re-plan frees at least stays within the low-water share: only the cost model cuts deeper.
    minHeadroom: Math.min(settings.clearing.clearAtLeastTokens, (1 - settings.budget.lowWaterRatio) * messageBudget),
  });
  // Only a re-plan needs the fresh boundary (a chat without tool results would walk its whole history).
  let freshClear: number | undefined;
  const fresh = (): number =>
    (freshClear ??= settings.clearing.enabled
      ? clearBoundary(messages, {
          keepToolResults: settings.clearing.keepToolResults,
          excluded: toolNamesMatcher(settings.clearing.excludeTools),
          newestUser,
        })
      : -1);
  // The host cut into the window from the front: keep only the newest part of what it passed, so the
  // next turns' cuts fall before the window's first message instead of moving it every turn.
  const cutTarget = hostCut
    ? tailShareTokens(messages, settings.budget.lowWaterRatio, (i) => input.count(i, fresh()))
    : undefined;
  const plan = planWindow({
    messages,
    budget: messageBudget,
    count: (i) => input.count(i, stableClear),
    replanCount: (i) => input.count(i, fresh()),
    fingerprint: (i) => fingerprintMessage(messages[i]),
    newestUser,
    previous: previous ?? null,
    target: cutTarget === undefined ? target : Math.min(target, cutTarget),
    lowWater: messageBudget > 0 && !previous?.pinned && cutTarget === undefined ? floor / messageBudget : 0,
  });
  return {
    plan,
    clearBefore: plan.recounted ? fresh() : stableClear,
    target,
    anchors,
    previous,
    pin: cutTarget !== undefined && plan.replanned,
  };
}

/** Whole turns every re-plan keeps, however small the window (the newest user message's turn included). */
export const KEPT_TURNS = 3;
/**
 * Host budgets from which a re-plan also keeps `budget.lowWaterRatio` of the budget (a 128k window leaves about
 * 100k): below, the cost model alone sizes the cut.
 */
export const FILL_FLOOR_FROM_BUDGET = 100_000;

/** Index of the `turns`-th newest genuine user message (0 when there are fewer). */
function newestTurnsStart(messages: readonly unknown[], turns: number): number {
  let found = 0;
  for (let i = messages.length - 1; i >= 0; i--) if (isGenuineUserMessage(messages[i]) && ++found === turns) return i;
  return 0;
}

/** Tokens of messages `start` to `end` (exclusive). */
function tokensFrom(start: number, end: number, count: (index: number) => number): number {
  let tokens = 0;
  for (let i = start; i < end; i++) tokens += count(i);
  return tokens;
}

/**
 * Tokens of the newest messages that make up `share` of the list's size in the host's
 * transcript (its characters: the host caps the tail it loads in bytes, 2026.9.6).
 */
function tailShareTokens(messages: readonly unknown[], share: number, count: (index: number) => number): number {
  let size = 0;
  for (const m of messages) size += hostMessageChars(m);
  let s = messages.length;
  let kept = 0;
  while (s > 0 && kept + hostMessageChars(messages[s - 1]) <= share * size) kept += hostMessageChars(messages[--s]);
  return tokensFrom(s, messages.length, count);
}

/**
 * The anchors to plan with. A frontier no anchor matches was moved by someone
 * else (compaction, or a state written before budget classes): it becomes the
 * only anchor, adopted by this call's class.
 */
function anchorsOf(state: WindowState, messageBudget: number): WindowAnchor[] {
  const windows = state.windows ?? [];
  const f = state.frontier;
  if (!f || windows.some((a) => a.start === f.start && a.anchor === f.anchor)) return [...windows];
  return [
    {
      start: f.start,
      anchor: f.anchor,
      budget: messageBudget,
      total: f.total,
      tokens: 0,
      clearBefore: -1,
      growth: windows.reduce((m, a) => Math.max(m, a.growth), 0),
      used: 0,
      pinned: true,
    },
  ];
}

/**
 * Picks this call's anchor where its first message sits now. A host that dropped
 * older messages from the front (2026.9.6 passes a tail of long transcripts) moved
 * every index down by as many; only the picked anchor is moved, so a call that sees
 * a shorter list (9.6 hands the first call's view to the next two) leaves the
 * other classes' anchors as they were. An anchor whose message is gone stays as
 * it was: the planner re-plans it and keeps its growth.
 */
function locateAnchor(
  stored: WindowAnchor[],
  messageBudget: number,
  messages: readonly unknown[],
): { anchors: WindowAnchor[]; previous: WindowAnchor | undefined; hostCut: boolean } {
  const total = messages.length;
  const fingerprints = new Map<number, string>();
  const fingerprint = (i: number): string => {
    let f = fingerprints.get(i);
    if (f === undefined) fingerprints.set(i, (f = fingerprintMessage(messages[i])));
    return f;
  };
  const cuts = new Set<WindowAnchor>();
  const located = stored.map((a) => {
    const shift = frontShift(a.start, a.anchor, total, fingerprint);
    if (shift !== undefined) return shiftAnchor(a, shift);
    const cut = cutPast(a, stored, total, fingerprint);
    if (cut === undefined) return a;
    // Its first message is gone, but the transcript it saw is still there, shorter by `cut`.
    const moved = { ...a, total: a.total - cut };
    cuts.add(moved);
    return moved;
  });
  const previous = pickAnchor(located, messageBudget, total);
  const i = previous ? located.indexOf(previous) : -1;
  return {
    anchors: stored.map((a, j) => (j === i ? located[j]! : a)),
    previous,
    hostCut: previous !== undefined && cuts.has(previous),
  };
}

/**
 * How far the front of the transcript was cut past a window whose first message is gone,
 * told by its newest message still being there, lower down (2026.9.6 loads a byte-capped
 * tail). Undefined for a rewrite or rewind, and when the list begins where another of this
 * session's windows begins: that is the engine's own view handed back (9.6's second and
 * third assembles), cut by the engine, not the host.
 */
function cutPast(
  anchor: WindowAnchor,
  stored: readonly WindowAnchor[],
  total: number,
  fingerprint: (i: number) => string,
): number | undefined {
  if (!anchor.tail || total === 0) return undefined;
  const cut = frontShift(anchor.total - 1, anchor.tail, total, fingerprint);
  if (cut === undefined || cut <= 0) return undefined;
  return stored.some((a) => a !== anchor && a.anchor === fingerprint(0)) ? undefined : cut;
}
