import { handleForBytes } from "../artifacts/index.js";
import type { WindowPlan } from "../window/planner.js";
import type { AgentSettings } from "../config/schema.js";
import { errorMessage, LedgerError } from "../errors.js";
import { fingerprintMessage, isGenuineUserMessage } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import { normalizeBudget } from "../host/host-budget.js";
import type { LastView, LedgerServices } from "../runtime/services.js";
import { sealCheckpoint } from "../summary/checkpoint.js";
import { renderSummary } from "../summary/render-summary.js";
import { userTurnsBefore } from "../summary/user-turns.js";
import { bringSummaryUpTo, openSummary, saveOpenedSummary } from "../summary/summary-service.js";
import { appendJsonlCompaction, canAppendJsonlCompaction } from "./jsonl-compaction.js";
import { compactionWindow, planCompaction, withinTarget } from "./compact-plan.js";

/** What compaction uses: the last views, session state, the store, counting, redaction, logs. */
export type CompactDeps = Pick<
  LedgerServices,
  "lastViews" | "sessions" | "store" | "counter" | "redact" | "logger" | "events"
>;

/** The host's CompactResult. */
export interface CompactOutcome {
  ok: boolean;
  compacted: boolean;
  reason?: string;
  result?: {
    summary?: string;
    firstKeptEntryId?: string;
    tokensBefore: number;
    tokensAfter?: number;
    details?: unknown;
  };
}

/** Inputs of {@link compactSession}. */
export interface CompactInput {
  identity: SessionIdentity;
  tokenBudget?: unknown;
  force?: unknown;
  currentTokenCount?: unknown;
  /**
   * Words the calling line reads as "nothing to do, run the model" in a compact()
   * reason (2026.5.28-2026.7.x: "nothing to compact"); any other reason for a
   * compaction it required makes the host skip the model.
   */
  skipReasonText?: string;
  /**
   * The user asked for it (2026.9.x passes `runtimeContext.forceReason: "manual"` and `compactionTarget: "threshold"`).
   */
  manual?: boolean;
  /**
   * The host's JSONL transcript, where its overflow precheck sizes the session as loaded rather
   * than the view (2026.4.24): the compaction is also recorded there, so the host loads less.
   */
  hostTranscript?: string;
  /**
   * Fingerprint of the user message the window should keep from (when it is later than the window's start): the
   * caller sized what follows it by another rule (2026.4.24's load, `host-load.ts`).
   */
  keepFrom?: string;
}

/**
 * Truthful compaction: moves the window's frontier forward (what leaves goes
 * into the summary and a sealed checkpoint pack) and says `compacted: true`
 * only when the next assembled view is really smaller. A forced call reduces
 * whenever anything is reducible; otherwise a reason code explains why not.
 */
export async function compactSession(
  deps: CompactDeps,
  settings: AgentSettings,
  input: CompactInput,
): Promise<CompactOutcome> {
  const { identity } = input;
  const view = deps.lastViews.get(`${identity.agentId}\u0000${identity.sessionKey}`);
  if (!view) return noAssembledView(input);
  const force = input.force === true;
  const budget = normalizeBudget(input.tokenBudget ?? view.budgetTokens, {
    fallbackTokens: view.budgetTokens,
    minTokens: settings.budget.minBudgetTokens,
  }).tokens;
  const tokensBefore = view.tokens;
  if (!force && withinTarget(settings, view, budget))
    return { ok: true, compacted: false, reason: "within_budget: already under target", result: { tokensBefore } };
  const counter = deps.counter(settings);
  const window = compactionWindow(view, counter);
  const plan = planCompaction(window, view, { ...input, force });
  if (plan.start <= view.start || plan.kept.length === 0)
    return nothingReducible(deps, settings, input, { view, plan });
  const sealed = await sealUpTo(deps, settings, { identity, view, start: plan.start });
  const tokensAfter = plan.tokens + counter.countText(sealed.text);
  // Report not-smaller before anything is written: a compaction that says "no" changes nothing (summary, checkpoints,
  // frontier).
  if (tokensAfter >= tokensBefore) {
    const reason = input.skipReasonText
      ? `not_smaller: ${input.skipReasonText} that would shrink the view`
      : "not_smaller";
    return { ok: true, compacted: false, reason, result: { tokensBefore, tokensAfter } };
  }
  return commitCompaction(deps, input, view, { plan, sealed, tokensAfter });
}

/**
 * Nothing assembled for the session in this process yet (a gateway restart, an adopted session): the next assemble
 * plans the view under the budget. A host that requires a compaction before that first assemble (2026.9.6 when the
 * session's last prompt, counted before the restart, neared its window) must read this as "nothing to do, run the
 * model": any other reason fails the turn, and every turn after it, since assemble never runs.
 */
function noAssembledView(input: CompactInput): CompactOutcome {
  return {
    ok: true,
    compacted: false,
    reason: input.skipReasonText
      ? `no_assembled_view: ${input.skipReasonText} before the first assemble`
      : "no_assembled_view",
  };
}

/**
 * The engine's window already holds only what the turn needs; the host may still load more than that (2026.4.24
 * loads from its newest compaction entry on, and its precheck sizes that): the window's start is recorded there.
 */
async function nothingReducible(
  deps: CompactDeps,
  settings: AgentSettings,
  input: CompactInput,
  { view, plan }: { view: LastView; plan: WindowPlan },
): Promise<CompactOutcome> {
  const { identity } = input;
  const recorded = input.hostTranscript
    ? await recordWindowStart(deps, settings, { identity, view, file: input.hostTranscript })
    : undefined;
  if (recorded) return recorded;
  // Literally true: the view holds only what the turn needs; the raw transcript is paid down by maintain().
  const reason = input.skipReasonText
    ? `nothing_reducible: ${input.skipReasonText} beyond the current turn`
    : "nothing_reducible";
  // What the decision rested on, for the event log (the host ignores details of a compaction it did not get).
  const details = {
    messages: view.messages.length,
    viewStart: view.start,
    planStart: plan.start,
    newestUser: plan.newestUser,
    messageBudget: Math.max(1, Math.floor(view.messageBudget)),
  };
  return { ok: true, compacted: false, reason, result: { tokensBefore: view.tokens, details } };
}

/** Stores the checkpoint, moves the view's frontier, records the compaction in the host's transcript when asked. */
async function commitCompaction(
  deps: CompactDeps,
  input: CompactInput,
  view: LastView,
  { plan, sealed, tokensAfter }: { plan: WindowPlan; sealed: SealedSummary; tokensAfter: number },
): Promise<CompactOutcome> {
  const { identity } = input;
  const { messages } = view;
  const tokensBefore = view.tokens;
  const handle = await sealed.commit({ start: plan.start, anchor: fingerprintMessage(messages[plan.start]) });
  view.start = plan.start;
  view.tokens = tokensAfter;
  const recorded = input.hostTranscript
    ? await recordInHostTranscript(deps, input.hostTranscript, {
        firstKept: fingerprintMessage(messages[plan.start]),
        summary: sealed.text,
        tokensBefore,
        details: { engine: "context-ledger", checkpoint: handle },
      })
    : undefined;
  // A host given no transcript to write records the compaction it is told of itself.
  if (recorded || !input.hostTranscript) countHostCompaction(deps, identity);
  void deps.events.write({
    op: "compact:sealed",
    agentId: identity.agentId,
    sessionKey: identity.sessionKey,
    handle,
    tokensBefore,
    tokensAfter,
    frontier: plan.start,
    hostEntry: recorded?.entryId ?? null,
  });
  return {
    ok: true,
    compacted: true,
    result: {
      summary: sealed.text,
      ...(recorded ? { firstKeptEntryId: recorded.firstKeptEntryId } : {}),
      tokensBefore,
      tokensAfter,
      details: { checkpoint: handle, frontier: plan.start },
    },
  };
}

/** A summary sealed on paper up to a window start: its text, and how to store and save it. */
interface SealedSummary {
  text: string;
  /** Stores the checkpoint pack, saves the summary and records the frontier; returns the pack's handle. */
  commit(frontier: { start: number; anchor: string }): Promise<string>;
}

/**
 * Brings the session summary up to `start` of the view and seals its checkpoint on paper (the handle is the pack's
 * hash): nothing is stored or saved until `commit`, so a compaction that answers not_smaller changes nothing.
 */
async function sealUpTo(
  deps: CompactDeps,
  settings: AgentSettings,
  { identity, view, start }: { identity: SessionIdentity; view: LastView; start: number },
): Promise<SealedSummary> {
  const { messages } = view;
  const store = deps.store(identity.agentId);
  const opened = await openSummary({
    sessionDir: deps.sessions.dir(identity.agentId, identity.sessionKey),
    messages,
    onReadError: (code, message) =>
      deps.logger.error(`summary sidecar problem ${code}: ${message}; compaction leaves it untouched for inspection`),
  });
  const { state: brought, users } = await bringSummaryUpTo(opened.state, messages, start, async (h) =>
    (await store.tryRead(h))?.toString("utf8"),
  );
  const sealed = await sealCheckpoint(brought, {
    frontierIndex: start,
    frontierFingerprint: fingerprintMessage(messages[start]),
    artifactHandles: [...view.handles],
    render: { maxChars: settings.summary.maxInjectedChars, redact: (t) => deps.redact(settings, t) },
    stash: async (content) => ({ handle: handleForBytes(content) }),
  });
  const { handle } = sealed;
  const summary = sealed.state;
  // The entry's summary quotes every user message before the kept turns, as the engine's own block does (a host that
  // shows it, 2026.4.x after a switch back to legacy, still shows the whole conversation).
  const text = renderSummary(summary, {
    maxChars: settings.summary.maxInjectedChars,
    checkpointHandle: handle,
    redact: (t) => deps.redact(settings, t),
    userTurns: userTurnsBefore(users, start),
  });
  return {
    text,
    async commit(frontier) {
      const stored = await store.stash(sealed.pack, {
        kind: "checkpoint",
        format: "json",
        origin: { agentId: identity.agentId, sessionKey: identity.sessionKey },
      });
      if (stored.handle !== handle)
        throw new LedgerError(
          "artifact_corrupt",
          `Expected the checkpoint pack to store as ${handle}, got ${stored.handle}`,
        );
      await saveOpenedSummary(opened, summary);
      await deps.sessions.update(identity.agentId, identity.sessionKey, (s) => {
        s.frontier = { ...frontier, total: messages.length };
        s.compactions += 1;
        s.checkpoints.push({ handle, at: new Date().toISOString(), coveredCount: summary.coveredCount });
        if (s.checkpoints.length > 50) s.checkpoints.splice(0, s.checkpoints.length - 50);
        return { value: undefined, write: true };
      });
      return handle;
    },
  };
}

/**
 * Records the engine's current window start as a compaction entry in the host's JSONL transcript, when the host
 * still loads from an earlier message (2026.4.24: what it loads, it sizes in its precheck). The engine's own window
 * does not move. Undefined when there is nothing to record: the window opens the transcript, or the host already
 * keeps from there or later.
 */
async function recordWindowStart(
  deps: CompactDeps,
  settings: AgentSettings,
  { identity, view, file }: { identity: SessionIdentity; view: LastView; file: string },
): Promise<CompactOutcome | undefined> {
  const start = view.start;
  const first = view.messages[start];
  if (start <= 0 || !isGenuineUserMessage(first)) return undefined;
  const firstKept = fingerprintMessage(first);
  if (!(await canAppendJsonlCompaction(file, firstKept))) return undefined;
  const sealed = await sealUpTo(deps, settings, { identity, view, start });
  const handle = await sealed.commit({ start, anchor: firstKept });
  const recorded = await recordInHostTranscript(deps, file, {
    firstKept,
    summary: sealed.text,
    tokensBefore: view.tokens,
    details: { engine: "context-ledger", checkpoint: handle },
  });
  void deps.events.write({
    op: "compact:recorded",
    agentId: identity.agentId,
    sessionKey: identity.sessionKey,
    handle,
    frontier: start,
    hostEntry: recorded?.entryId ?? null,
  });
  if (!recorded) return undefined;
  countHostCompaction(deps, identity);
  return {
    ok: true,
    compacted: true,
    result: {
      summary: sealed.text,
      firstKeptEntryId: recorded.firstKeptEntryId,
      tokensBefore: view.tokens,
      tokensAfter: view.tokens,
      details: { checkpoint: handle, frontier: start, hostOnly: true },
    },
  };
}

/** Counts one compaction entry the host's transcript got (what `status` reports as compactions). */
function countHostCompaction(deps: CompactDeps, identity: SessionIdentity): void {
  deps.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => {
    s.hostCompactions = (s.hostCompactions ?? 0) + 1;
  });
}

/**
 * Appends the compaction to the host's transcript; a failure is logged and leaves the engine's own compaction standing.
 */
async function recordInHostTranscript(
  deps: CompactDeps,
  file: string,
  entry: Parameters<typeof appendJsonlCompaction>[1],
) {
  try {
    const written = await appendJsonlCompaction(file, entry);
    if (!written)
      deps.logger.warn(
        `compaction not recorded in the host transcript ${file}: its first kept message is not on the active branch, an equal compaction is there, or another process holds the session lock`,
      );
    return written;
  } catch (err) {
    deps.logger.warn(`compaction not recorded in the host transcript ${file}: ${errorMessage(err)}`);
    return undefined;
  }
}
