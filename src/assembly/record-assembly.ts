import type { AgentSettings } from "../config/schema.js";
import { fingerprintMessage, isGenuineUserMessage, textOf } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { DebtReading, RawTally } from "../host/raw-tally.js";
import type { LastView, LedgerServices } from "../runtime/services.js";
import { newestUserIndex } from "../window/units.js";
import { recordWindow } from "../window/window-anchors.js";
import type { AssemblyCall } from "./assembly-call.js";
import type { SummarizedView } from "./attach-summary.js";
import type { AssemblyPorts } from "./ports.js";
import type { StoredView } from "./store-offloads.js";

/** What recording an assembly touches: the last views (for compact()) and the session's state. */
export type RecordAssemblyDeps = Pick<LedgerServices, "lastViews" | "sessions">;

/** What recording reads of the session's state: the raw history's tally and the turns committed. */
export interface SessionReading {
  raw: RawTally;
  turns: number;
  /** User turns committed (absent in a state written before they were counted). */
  userTurns?: number;
  /** The newest user message committed, by fingerprint. */
  lastUserFingerprint?: string;
}

/**
 * Records what one assembly decided, for the calls after it: the view compact() plans from, the debt reading,
 * the operators' view record and the window's anchors. Returns the debt reading.
 */
export function recordAssembly(
  deps: RecordAssemblyDeps,
  ports: AssemblyPorts,
  call: AssemblyCall,
  outcome: { settings: AgentSettings; state: SessionReading; stored: StoredView; out: SummarizedView },
): DebtReading {
  const { settings, state, out } = outcome;
  const { shaping, planned, storedBytes } = outcome.stored;
  const { identity, resolved } = call;
  const { budget, messageBudget } = resolved;
  const { view, table } = shaping;
  const { plan, clearBefore, windows } = planned;
  // What the view record shows is what was sent: not a compaction summary the engine's own summary replaced.
  const sentFrom = out.replacedHostSummary ? 1 : 0;
  const kept = planned.kept.slice(sentFrom);
  const keptIdx = planned.keptIdx.slice(sentFrom);
  // The handles the kept messages cite: their originals stay fetchable (compact(), the view record).
  const handles = new Set([...shaping.shaper.handles(), ...shaping.clearing.handles()]);
  rememberView(deps, identity, {
    messages: view,
    sessionId: identity.sessionId,
    shape: (i) => table.carried(i, clearBefore),
    cost: (i) => table.cost(i, clearBefore),
    budgetTokens: budget.tokens,
    messageBudget,
    tokens: out.exactTokens,
    start: planned.keptIdx[0] ?? plan.start,
    handles,
  });
  const debt = ports.measureDebt(identity, {
    history: call.history,
    raw: state.raw,
    minEntryChars: settings.maintenance.minEntryChars,
    assembledTokens: out.exactTokens,
    promptBudget: budget.tokens,
    turn: state.turns + 1,
    userTurn: userTurnOf(state, call),
  });
  // What `context-ledger view` and `/ledger view` show: written in the background, flushed on dispose.
  ports.recordView(settings, identity, {
    turn: state.turns + 1,
    shown: call.messages,
    kept,
    keptIndexes: keptIdx,
    tokensOf: (i) => table.tokens(i, clearBefore),
    total: view.length,
    budget: { tokens: budget.tokens, messageBudget },
    estimatedTokens: out.estimatedTokens,
    plan: {
      start: plan.start,
      reason: plan.reason,
      replanned: plan.replanned,
      overBudget: plan.overBudget,
      excluded: plan.excluded.length,
    },
    summary: { text: out.summary ? textOf(out.summary) : undefined, tokens: out.summaryTokens },
    debt,
    handles,
  });
  // A view handed back and kept whole planned nothing: the windows stay the ones the transcript's calls planned.
  const anchors = planned.passedThrough
    ? undefined
    : recordWindow(windows.anchors, windows.previous, {
        plan,
        budget: messageBudget,
        total: view.length,
        clearBefore,
        fingerprint: table.fingerprint,
        pin: windows.pin,
      });
  const frontier =
    plan.kept.length > 0 ? { start: plan.start, anchor: table.fingerprint(plan.start), total: view.length } : null;
  deps.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => {
    if (anchors) {
      s.frontier = frontier;
      s.windows = anchors;
    }
    s.sessionId = identity.sessionId;
    s.artifactBytes = (s.artifactBytes ?? 0) + storedBytes;
  });
  return debt;
}

/**
 * The user's turn an assembly serves: the user turns committed, plus the live one when it is not committed yet (in
 * the history, as 2026.4-2026.7 pass it, or after it, as 2026.8+ append it). 2026.4.24 commits each tool-loop step,
 * so its later assemblies of a turn find the turn's user message committed already.
 */
function userTurnOf(state: SessionReading, call: AssemblyCall): number {
  const committed = state.userTurns ?? state.turns;
  const newest = call.messages.findLast(isGenuineUserMessage);
  const liveUncommitted =
    call.liveTurnOutside ||
    (newest !== undefined && fingerprintMessage(newest) !== state.lastUserFingerprint) ||
    call.messages.length === 0;
  return committed + (liveUncommitted ? 1 : 0);
}

function rememberView(deps: Pick<LedgerServices, "lastViews">, identity: SessionIdentity, view: LastView): void {
  const key = `${identity.agentId}\u0000${identity.sessionKey}`;
  const previous = deps.lastViews.get(key);
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
  deps.lastViews.set(key, view);
}

/** The fingerprint of the turn's genuine user message ("" when there is none): what tells one turn from the next. */
function newestUserFingerprint(messages: readonly unknown[]): string {
  const i = newestUserIndex(messages);
  return i < 0 ? "" : fingerprintMessage(messages[i]);
}
