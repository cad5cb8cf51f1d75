import { planWindow, type WindowPlan } from "../window/planner.js";
import { recordWindow } from "../window/window-anchors.js";
import { planElasticWindow } from "../window/elastic-window.js";
import { newestUserIndex } from "../window/units.js";
import { createMessageTable, type MessageTable } from "../window/message-table.js";
import type { AgentSettings } from "../config/schema.js";
import { isLedgerError } from "../errors.js";
import { HOST_LINES, type HostLineSemantics } from "../host/host-lines.js";
import type { HostGeneration, SessionIdentity } from "../host/normalize.js";
import type { NormalizedBudget } from "../host/host-budget.js";
import { resolveAssemblyBudget, type RequestOverhead } from "./budget.js";
import {
  fingerprintMessage,
  hasToolCall,
  isSummaryMessage,
  roleOf,
  summaryMessage,
  textOf,
  withoutOperatorMessages,
} from "../host/messages.js";
import type { DebtReading } from "../host/raw-tally.js";
import type { LastView, LedgerRuntime } from "../runtime/ledger-runtime.js";
import { createClearingShaper } from "./cleared-shaper.js";
import type { AssemblyPorts, SummaryRequest } from "./ports.js";
import { createShaper } from "./shaper.js";
import { reduceNewestUserTurn } from "./reduce-user-turn.js";

/** Inputs of {@link assembleView}. */
export interface AssembleViewInput {
  identity: SessionIdentity;
  messages: unknown;
  tokenBudget: unknown;
  model?: unknown;
  /** Which host line is calling (its budget means different things). */
  generation?: HostGeneration;
  /** The line's semantics; defaults to the row of `generation`. */
  semantics?: HostLineSemantics;
  /** The host config handed to the factory (model limits). */
  hostConfig?: unknown;
  /** The live user turn the host appends after the view (assemble's `prompt`). */
  prompt?: unknown;
  /** assemble's `runtimeSettings`. */
  runtimeSettings?: unknown;
  /** System prompt and tool schemas measured on the previous request, when known. */
  overhead?: RequestOverhead;
}

/** What assemble returns to the host, plus the ledger's own reading. */
export interface AssembledView {
  messages: unknown[];
  estimatedTokens: number;
  promptAuthority: "assembled";
  /** Extra metadata: the maintenance-debt reading and the plan, for logs and tests. */
  ledger: {
    debt: DebtReading;
    budget: NormalizedBudget;
    plan: Pick<WindowPlan, "start" | "reason" | "replanned" | "overBudget"> & { kept: number; excluded: number };
    /** The host's own budget for this view: which estimator binds, its room, and what it will count. */
    host: {
      rule: string;
      messageUnits: number | null;
      estimate: number;
      exactTokens: number;
      contextWindow: number | null;
      maxOutputTokens: number | null;
    };
    offloaded: number;
    summaryInjected: boolean;
    /**
     * Wall time spent awaiting, per step (ms). The rest of the call is the engine's own work: with other sessions
     * running in the process, an await also waits for theirs.
     */
    waits: AssemblyWaits;
  };
}

/** The steps of an assemble that await: pending captures, session state, the user-turn reduction, stores, summary. */
export type AssemblyWaits = Partial<Record<"captures" | "state" | "reduce" | "store" | "summary", number>>;

/**
 * Plans the prompt under the budget: shape tool results (offload), keep the
 * newest history that fits (append-stable), reduce an oversized newest user
 * turn losslessly, inject the summary when history was trimmed, and measure
 * raw-history pressure as maintenance debt (reported, never acted on here).
 */
export async function assembleView(
  rt: LedgerRuntime,
  ports: AssemblyPorts,
  settings: AgentSettings,
  input: AssembleViewInput,
): Promise<AssembledView> {
  const { identity } = input;
  const history = Array.isArray(input.messages) ? (input.messages as unknown[]) : [];
  // The model is shown the history without operator exchanges; the debt measures it as stored.
  const messages = withoutOperatorMessages(history);
  const modelId = typeof input.model === "string" ? input.model : undefined;
  const counter = rt.counter(settings, modelId);
  // What the provider adds once per request to prime the reply (the counter knows its format).
  const replyPrimingTokens = counter.countMessages([]);
  const generation = input.generation ?? "2026.9";
  const semantics = input.semantics ?? HOST_LINES[generation];
  const resolved = resolveAssemblyBudget(settings, {
    ...input,
    generation,
    semantics,
    messages,
    replyPrimingTokens,
    hostCharsMemo: rt.owned("host:chars", () => new WeakMap<object, number>()),
  });
  const { budget, messageBudget, hostPlan, rawHostUnits, hostUnits, shaping } = resolved;
  const waits: AssemblyWaits = {};
  const waited = async <T>(step: keyof AssemblyWaits, work: Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work;
    } finally {
      waits[step] = (waits[step] ?? 0) + performance.now() - started;
    }
  };

  // A tool result the after_tool_call hook is still storing: its stub cites the capture, not the host's cut copy.
  await waited("captures", ports.settleCaptures(identity));
  const state = await waited("state", rt.sessions.read(identity.agentId, identity.sessionKey));
  let view = messages;
  const findCaptured = ports.capturedOriginals(identity);
  const tableOf = (carried: (index: number, cleared: boolean) => unknown): MessageTable =>
    createMessageTable(view, {
      carried,
      tokens: (m) => counter.countMessage(m),
      hostChars: resolved.hostChars,
      charge: resolved.charge,
    });
  let shaper = createShaper(rt, shaping, { identity, messages: view, findCaptured });
  let clearing = createClearingShaper(rt, shaping, view, shaper);
  let table = tableOf(clearing.carried);
  const { newestUser } = table;
  // An oversized newest user message is reduced (losslessly) before the one plan, not after a failed one.
  if (newestUser >= 0 && table.tokens(newestUser, -1) > messageBudget) {
    view = await waited(
      "reduce",
      reduceNewestUserTurn({ rt, settings, identity, counter }, view, newestUser, messageBudget),
    );
    shaper = createShaper(rt, shaping, { identity, messages: view, findCaptured });
    clearing = createClearingShaper(rt, shaping, view, shaper);
    table = tableOf(clearing.carried);
  }
  const windows = planElasticWindow(state, settings, {
    table,
    hostBudget: budget.tokens,
    messageBudget,
    liveTurnOutside: liveTurnOutside(semantics, input.prompt, history, view),
  });
  let { plan } = windows;
  let clearBefore = windows.clearBefore;

  let keptIdx = withHostSummaryFirst(table, plan.kept);
  let kept = keptIdx.map((i) => table.carried(i, clearBefore));
  let storedBytes = 0;
  try {
    storedBytes = await waited("store", shaper.flush(settings.limits.maxSessionBytes - (state.artifactBytes ?? 0)));
  } catch (err) {
    if (!isLedgerError(err, "store_full")) throw err;
    // No handle may reach the prompt unless its original is stored: keep outputs inline this turn, re-planned.
    rt.logger.warn(
      `offload refused session=${identity.sessionKey}: ${err.code}: ${err.message}; tool outputs stay inline this turn`,
    );
    void rt.events.write({
      op: "offload:refused",
      agentId: identity.agentId,
      sessionKey: identity.sessionKey,
      reason: err.message,
    });
    const inline = {
      ...settings,
      offload: { ...settings.offload, enabled: false },
      clearing: { ...settings.clearing, enabled: false },
    };
    shaper = createShaper(rt, inline, { identity, messages: view, findCaptured });
    clearing = createClearingShaper(rt, inline, view, shaper);
    table = tableOf(clearing.carried);
    clearBefore = -1;
    plan = planWindow({
      messages: view,
      budget: messageBudget,
      count: (i) => table.cost(i, clearBefore),
      fingerprint: table.fingerprint,
      newestUser,
      target: windows.target,
    });
    keptIdx = withHostSummaryFirst(table, plan.kept);
    kept = keptIdx.map((i) => table.carried(i, clearBefore));
  }
  const keptTokens = keptIdx.reduce<number>((sum, i) => sum + table.tokens(i, clearBefore), 0);
  // A view handed back (2026.9.x passes the turn's assembled view to its in-loop calls) keeps the summary it carries
  // in front: the turn's requests then share their prefix, and the record is not reconciled against a list that is
  // not the transcript.
  const carried = [history[0], history[1]].find(isSummaryMessage);
  const summaryMsg =
    carried !== undefined
      ? fitting(carried, resolved.summaryRoom(keptTokens), counter)
      : await waited(
          "summary",
          freshSummary(ports, settings, identity, {
            messages: view,
            windowStart: plan.start,
            windowTokens: plan.tokens,
            // The summary travels as a message: its framing comes out of the room too.
            budgetLeft: resolved.summaryRoom(keptTokens) - counter.countMessage(summaryMessage("")),
            counter,
          }),
        );
  const out = summaryMsg ? withSummaryAfterHostSummary(kept, summaryMsg) : kept;
  // Exact count of the returned list (framing, reply priming once), and what the host will count:
  // the larger is reported, so the host's own estimate never exceeds what the engine said.
  const summaryTokens = summaryMsg ? counter.countMessage(summaryMsg) : 0;
  const exactTokens = keptTokens + summaryTokens + replyPrimingTokens;
  const hostEstimate = resolved.hostEstimate(out);
  const estimatedTokens = Math.max(exactTokens, hostPlan.host.rule === "none" ? 0 : hostEstimate);

  // The handles the kept messages cite: their originals stay fetchable (compact(), the view record).
  const handles = new Set([...shaper.handles(), ...clearing.handles()]);
  rememberView(rt, identity, {
    messages: view,
    sessionId: identity.sessionId,
    shape: (i) => table.carried(i, clearBefore),
    cost: (i) => table.cost(i, clearBefore),
    budgetTokens: budget.tokens,
    messageBudget,
    tokens: exactTokens,
    start: keptIdx[0] ?? plan.start,
    handles,
  });

  const debt = ports.measureDebt(identity, {
    history,
    raw: state.raw,
    minEntryChars: settings.maintenance.minEntryChars,
    assembledTokens: exactTokens,
    promptBudget: budget.tokens,
    turn: state.turns + 1,
  });
  // What `context-ledger view` and `/ledger view` show: written in the background, flushed on dispose.
  ports.recordView(settings, identity, {
    turn: state.turns + 1,
    kept,
    keptIndexes: keptIdx,
    tokensOf: (i) => table.tokens(i, clearBefore),
    total: view.length,
    budget: { tokens: budget.tokens, messageBudget },
    estimatedTokens,
    plan: {
      start: plan.start,
      reason: plan.reason,
      replanned: plan.replanned,
      overBudget: plan.overBudget,
      excluded: plan.excluded.length,
    },
    summary: { text: summaryMsg ? textOf(summaryMsg) : undefined, tokens: summaryTokens },
    debt,
    handles,
  });
  const anchors = recordWindow(windows.anchors, windows.previous, {
    plan,
    budget: messageBudget,
    total: view.length,
    clearBefore,
    fingerprint: table.fingerprint,
    pin: windows.pin,
  });
  const frontier =
    plan.kept.length > 0 ? { start: plan.start, anchor: table.fingerprint(plan.start), total: view.length } : null;
  rt.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => {
    s.frontier = frontier;
    s.windows = anchors;
    s.sessionId = identity.sessionId;
    s.artifactBytes = (s.artifactBytes ?? 0) + storedBytes;
  });
  return {
    messages: out,
    estimatedTokens,
    promptAuthority: "assembled",
    ledger: {
      debt,
      budget,
      plan: {
        start: plan.start,
        reason: plan.reason,
        replanned: plan.replanned,
        overBudget: plan.overBudget,
        kept: keptIdx.length,
        excluded: plan.excluded.length,
      },
      host: {
        rule:
          rawHostUnits !== undefined && hostUnits === undefined ? `${hostPlan.host.rule}:unviable` : hostPlan.host.rule,
        messageUnits: rawHostUnits ?? null,
        estimate: hostEstimate,
        exactTokens,
        contextWindow: hostPlan.contextWindow ?? null,
        maxOutputTokens: hostPlan.maxOutputTokens ?? null,
      },
      offloaded: shaper.offloaded(),
      summaryInjected: summaryMsg !== undefined,
      waits,
    },
  };
}

/**
 * The live user turn travels outside the history (the host appends assemble's `prompt` after the view) and the
 * history's newest turn is finished (it ends with an answer, not a tool call or result). Not for a view handed back
 * inside a turn (it carries the summary in front): that list must stay the turn's first view.
 */
function liveTurnOutside(
  semantics: HostLineSemantics,
  prompt: unknown,
  history: readonly unknown[],
  view: readonly unknown[],
): boolean {
  if (!semantics.appendsLivePrompt || typeof prompt !== "string" || prompt.trim() === "") return false;
  if ([history[0], history[1]].some(isSummaryMessage)) return false;
  const last = view.at(-1);
  return roleOf(last) === "assistant" && !hasToolCall(last);
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

/** The session summary for a planned window, as the view's summary message (undefined when none is due). */
async function freshSummary(
  ports: AssemblyPorts,
  settings: AgentSettings,
  identity: SessionIdentity,
  request: SummaryRequest,
): Promise<unknown> {
  const summary = await ports.summary(settings, identity, request);
  return summary.text ? summaryMessage(summary.text) : undefined;
}

/** `message` while its exact tokens fit `room`, else undefined. */
function fitting(message: unknown, room: number, counter: { countMessage(message: unknown): number }): unknown {
  return counter.countMessage(message) <= room ? message : undefined;
}

/** The view with the summary message first, or second behind the host's own compaction summary (2026.4.x). */
function withSummaryAfterHostSummary(kept: readonly unknown[], summary: unknown): unknown[] {
  return roleOf(kept[0]) === "compactionSummary" ? [kept[0], summary, ...kept.slice(1)] : [summary, ...kept];
}

function rememberView(rt: LedgerRuntime, identity: SessionIdentity, view: LastView): void {
  const key = `${identity.agentId}\u0000${identity.sessionKey}`;
  const previous = rt.lastViews.get(key);
  // 2026.9.x also assembles partial histories inside a turn (tool-loop retries); compact()
  // must plan on the fullest view of the current conversation, not the last partial one.
  // 9.x's in-loop calls may pass a shorter, host-trimmed slice of the same conversation (same epoch): not the fuller
  // view.
  // Only within one turn: a later turn may pass fewer messages (2026.4.24 loads the session from its newest
  // compaction entry on), and a view kept from an earlier turn gives compact() a window it cannot reduce, after
  // which the host's precheck resets the session.
  const previousUser = previous ? newestUserFingerprint(previous.messages) : "";
  const sameTurn =
    previous !== undefined &&
    previous.sessionId === view.sessionId &&
    previousUser !== "" &&
    previousUser === newestUserFingerprint(view.messages);
  if (previous && sameTurn && previous.messages.length > view.messages.length) return;
  // The same history planned under a smaller budget (9.x's in-loop call) is not the fuller view either.
  if (
    previous &&
    sameTurn &&
    previous.messages.length === view.messages.length &&
    previous.messageBudget > view.messageBudget
  )
    return;
  rt.lastViews.set(key, view);
}

/** The fingerprint of the turn's genuine user message ("" when there is none): what tells one turn from the next. */
function newestUserFingerprint(messages: readonly unknown[]): string {
  const i = newestUserIndex(messages);
  return i < 0 ? "" : fingerprintMessage(messages[i]);
}
