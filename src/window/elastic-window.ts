/**
 * The window of one assemble call: picks the anchor of the call's budget
 * class, sizes a re-plan from the session's observed growth, fixes where old
 * tool results are cleared, and plans once. Pure: state and settings in, plan out.
 */
import type { AgentSettings } from "../config/schema.js";
import { roleOf, toolNameOf } from "../host/messages.js";
import { toolNamesMatcher } from "../config/tool-names.js";
import type { MessageTable } from "./message-table.js";
import { planWindow, type WindowPlan } from "./planner.js";
import { frontShift, pickAnchor, replanTarget, shiftAnchor, type WindowAnchor } from "./window-anchors.js";

/** Inputs of {@link planElasticWindow}. */
export interface ElasticWindowInput {
  /** The history, its costs and fingerprints. */
  table: MessageTable;
  /** The host's prompt budget (what the low-water mark is a share of). */
  hostBudget: number;
  /** Tokens available for messages. */
  messageBudget: number;
  /**
   * The newest turn of the history is finished and the live one travels outside it (assemble's `prompt`): a re-plan
   * may then keep no turn at all, and the next turns extend that empty window.
   * @default false
   */
  liveTurnOutside?: boolean;
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
  const { table, messageBudget } = input;
  const { messages, newestUser } = table;
  const { anchors, previous, hostCut } = locateAnchor(anchorsOf(state, messageBudget), messageBudget, table);
  const stableClear = previous?.clearBefore ?? -1;
  // The newest turns are kept at any window; a large window also keeps the low-water share of its budget.
  const newest = newestTurnsKept(table, messageBudget, input.liveTurnOutside === true, (i) =>
    table.cost(i, stableClear),
  );
  const fillFloor =
    input.hostBudget >= FILL_FLOOR_FROM_BUDGET ? Math.ceil(settings.budget.lowWaterRatio * input.hostBudget) : 0;
  const floor = Math.min(messageBudget, Math.max(newest.tokens, fillFloor));
  const growth = previous?.growth ?? anchors.reduce((m, a) => Math.max(m, a.growth), 0);
  const byCost = replanTarget({
    budget: messageBudget,
    floor,
    ceiling: Math.max(floor, settings.budget.refillRatio * messageBudget),
    growth,
    priceRatio: settings.budget.cachePriceRatio,
    // The room a re-plan frees at least stays within the low-water share: only the cost model cuts deeper.
    minHeadroom: Math.min(settings.clearing.clearAtLeastTokens, (1 - settings.budget.lowWaterRatio) * messageBudget),
  });
  // Fewer turns were kept to leave the next one room: a deeper target would take the next older turn (a window
  // opens at its user message) and that room back.
  const target = newest.turns < KEPT_TURNS ? Math.min(byCost, floor) : byCost;
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
    ? tailShareTokens(table, settings.budget.lowWaterRatio, (i) => table.cost(i, fresh()))
    : undefined;
  const plan = planWindow({
    messages,
    budget: messageBudget,
    count: (i) => table.cost(i, stableClear),
    replanCount: (i) => table.cost(i, fresh()),
    fingerprint: table.fingerprint,
    newestUser,
    previous: previous ?? null,
    target: cutTarget === undefined ? target : Math.min(target, cutTarget),
    keepNoTurn: newest.turns === 0 && fillFloor === 0,
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

/**
 * Whole turns a re-plan keeps (the newest user message's turn included) while the room they leave holds the next
 * turn; see {@link newestTurnsKept}.
 */
const KEPT_TURNS = 3;

/** The newest turns a re-plan keeps: how many, and their tokens. */
export interface NewestTurns {
  turns: number;
  tokens: number;
}

/**
 * The newest whole turns a re-plan keeps: {@link KEPT_TURNS}, however small the window, unless the live turn travels
 * outside the history and the room those turns leave in `budget` would not hold one more turn the size of the newest
 * finished one. A window that cannot take the next turn is re-planned at every turn start, and each re-plan sends
 * the window again uncached (`budget.cachePriceRatio` times the price of a cached read). Then the most turns, down
 * to none (the summary alone; the host appends the question), that leave that room, so the next turn start extends
 * the window and reads it from the cache; when even none leaves it, {@link KEPT_TURNS} (a deeper cut spaces
 * nothing). Reads only the turns it weighs.
 */
export function newestTurnsKept(
  table: MessageTable,
  budget: number,
  liveTurnOutside: boolean,
  count: (index: number) => number,
): NewestTurns {
  const end = table.messages.length;
  const most = { turns: KEPT_TURNS, tokens: tokensFrom(table.turnStart(KEPT_TURNS), end, count) };
  if (!liveTurnOutside || table.newestUser < 0) return most;
  const nextTurn = tokensFrom(table.turnStart(1), end, count);
  for (let turns = KEPT_TURNS; turns >= 0; turns--) {
    const tokens =
      turns === KEPT_TURNS ? most.tokens : turns === 0 ? 0 : tokensFrom(table.turnStart(turns), end, count);
    if (budget - tokens >= nextTurn) return { turns, tokens };
  }
  return most;
}
/**
 * Host budgets from which a re-plan also keeps `budget.lowWaterRatio` of the budget (a 128k window leaves about
 * 100k): below, the cost model alone sizes the cut.
 */
export const FILL_FLOOR_FROM_BUDGET = 100_000;

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
function tailShareTokens(table: MessageTable, share: number, count: (index: number) => number): number {
  const total = table.messages.length;
  let size = 0;
  for (let i = 0; i < total; i++) size += table.hostChars(i);
  let s = total;
  let kept = 0;
  while (s > 0 && kept + table.hostChars(s - 1) <= share * size) kept += table.hostChars(--s);
  return tokensFrom(s, total, count);
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
  table: MessageTable,
): { anchors: WindowAnchor[]; previous: WindowAnchor | undefined; hostCut: boolean } {
  const total = table.messages.length;
  const fingerprint = table.fingerprint;
  const cuts = new Set<WindowAnchor>();
  const located = stored.map((a) => {
    // An empty window is found by the message it follows (one that opened the list stays at its start).
    const shift =
      a.before === undefined
        ? frontShift(a.start, a.anchor, total, fingerprint)
        : a.start === 0
          ? 0
          : frontShift(a.start - 1, a.before, total, fingerprint);
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

/** Inputs of {@link clearBoundary}. */
export interface ClearBoundaryOptions {
  /** Tool results kept in full, newest first. */
  keepToolResults: number;
  /** True for tools whose results are never cleared (counted out of the last N too). */
  excluded: (toolName: string) => boolean;
  /** Index of the newest genuine user message: nothing from there on is cleared (the model is using it). */
  newestUser: number;
}

/**
 * Index before which results are cleared: everything older than the
 * `keepToolResults`-th newest clearable tool result, and never inside the
 * current turn. -1 when nothing is old enough. Walks back from the end.
 */
export function clearBoundary(messages: readonly unknown[], options: ClearBoundaryOptions): number {
  if (options.newestUser <= 0) return -1;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (roleOf(m) !== "toolResult" || options.excluded(toolNameOf(m))) continue;
    if (seen === options.keepToolResults) return Math.min(i + 1, options.newestUser);
    seen++;
  }
  return -1;
}
