import type { AgentSettings } from "../config/schema.js";
import { planElasticWindow, type ElasticWindow, type WindowState } from "../window/elastic-window.js";
import type { MessageTable } from "../window/message-table.js";
import { planWindow, type WindowPlan } from "../window/planner.js";
import type { WindowAnchor } from "../window/window-anchors.js";
import type { AssemblyCall } from "./assembly-call.js";
import type { ViewShaping } from "./view-shaping.js";

/** The window one call keeps, and the messages as they will be carried. */
export interface PlannedView {
  /** The elastic planner's answer (its anchors and target are recorded after the call). */
  windows: ElasticWindow;
  plan: WindowPlan;
  /** Tool results before this index are cleared (-1: none). */
  clearBefore: number;
  /** The kept indexes, the host's own compaction summary first when it leads the history. */
  keptIdx: number[];
  kept: unknown[];
  /** A view handed back that fits this call: kept whole, and the session's anchors left as they were. */
  passedThrough?: boolean;
}

/** Plans the window over the shaped table: the elastic planner decides where it starts and what is cleared. */
export function planView(
  state: WindowState,
  settings: AgentSettings,
  call: AssemblyCall,
  { table }: ViewShaping,
): PlannedView {
  const { budget, messageBudget } = call.resolved;
  if (call.handedBack) {
    const whole = keptWhole(settings, call, table);
    if (whole) return whole;
  }
  const windows = planElasticWindow(state, settings, {
    table,
    hostBudget: budget.tokens,
    messageBudget,
    liveTurnOutside: call.liveTurnOutside,
  });
  return keeping(windows, windows.plan, windows.clearBefore, table);
}

/**
 * The turn's own view handed back to an in-loop call is the prompt the turn's requests share: kept whole when it fits
 * this call's budget, as if its window started at its first message. Planning it as a window of its own budget class
 * could cut it where the turn's first call did not, and the request would then stop sharing the turn's prefix.
 * Undefined when it does not fit: the call plans as any other.
 */
function keptWhole(settings: AgentSettings, call: AssemblyCall, table: MessageTable): PlannedView | undefined {
  const total = table.messages.length;
  if (total === 0) return undefined;
  const front: WindowAnchor = {
    start: 0,
    anchor: table.fingerprint(0),
    budget: call.resolved.messageBudget,
    total,
    tokens: 0,
    clearBefore: -1,
    growth: 0,
    used: 0,
    pinned: true,
  };
  const windows = planElasticWindow({ windows: [front], frontier: null }, settings, {
    table,
    hostBudget: call.resolved.budget.tokens,
    messageBudget: call.resolved.messageBudget,
    liveTurnOutside: false,
  });
  if (windows.plan.replanned || windows.plan.start !== 0) return undefined;
  return { ...keeping(windows, windows.plan, windows.clearBefore, table), passedThrough: true };
}

/** Plans again over a table with nothing cleared, toward the target the elastic plan chose. */
export function replanUncleared(call: AssemblyCall, planned: PlannedView, { view, table }: ViewShaping): PlannedView {
  const plan = planWindow({
    messages: view,
    budget: call.resolved.messageBudget,
    count: (i) => table.cost(i, -1),
    fingerprint: table.fingerprint,
    newestUser: table.newestUser,
    target: planned.windows.target,
  });
  return keeping(planned.windows, plan, -1, table);
}

function keeping(windows: ElasticWindow, plan: WindowPlan, clearBefore: number, table: MessageTable): PlannedView {
  const keptIdx = withHostSummaryFirst(table, plan.kept);
  return { windows, plan, clearBefore, keptIdx, kept: keptIdx.map((i) => table.carried(i, clearBefore)) };
}

/**
 * The host's own compaction summary leads what it loads after a compaction it recorded
 * (2026.4.x: `compactionSummary`, the turns before the kept ones told in short). A window
 * that starts after it still shows it first: it is the only telling of those turns in
 * the prompt (the engine's own summary starts afresh with the shorter transcript), and
 * it fits the room reserved for a summary.
 */
function withHostSummaryFirst(table: MessageTable, kept: readonly number[]): number[] {
  if (kept.length === 0 || kept[0] === 0 || !table.pinned(0)) return [...kept];
  return [0, ...kept];
}
