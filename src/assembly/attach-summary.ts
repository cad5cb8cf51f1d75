import type { AgentSettings } from "../config/schema.js";
import { isSummaryMessage, roleOf, SUMMARY_OPEN, summaryMessage, textOf, timestampOf } from "../host/messages.js";
import type { AssemblyCall } from "./assembly-call.js";
import type { AssemblyPorts } from "./ports.js";
import type { StoredView } from "./store-offloads.js";

/** The returned list and its counts: what the host is told the view costs. */
export interface SummarizedView {
  messages: unknown[];
  /** The summary message in the view, if any. */
  summary: unknown;
  summaryTokens: number;
  /** Exact tokens of the returned list (framing, reply priming once). */
  exactTokens: number;
  /** What the host's own estimator will count. */
  hostEstimate: number;
  /** The larger of the two: the host's estimate never exceeds what the engine said. */
  estimatedTokens: number;
  /** The host's compaction summary (the engine's own, 2026.4.x) gave way to the summary message. */
  replacedHostSummary: boolean;
}

/**
 * Puts the session summary in the room the kept messages leave. A view handed back (2026.9.x passes the turn's
 * assembled view to its in-loop calls) keeps the summary it carries in front: the turn's requests then share their
 * prefix, and the record is not reconciled against a list that is not the transcript.
 */
export async function attachSummary(
  ports: AssemblyPorts,
  settings: AgentSettings,
  call: AssemblyCall,
  { shaping, planned }: StoredView,
): Promise<SummarizedView> {
  const { counter, resolved, history } = call;
  const { table } = shaping;
  const { plan, keptIdx, kept, clearBefore } = planned;
  // A compaction entry's summary that the engine wrote (2026.4.x loads it first) gives way to the engine's own block:
  // one summary per request, and the block quotes what the entry's record told.
  const hostOwn = isOwnCompactionSummary(kept[0]);
  const hostTokens = hostOwn ? table.tokens(keptIdx[0]!, clearBefore) : 0;
  const keptTokens = keptIdx.reduce<number>((sum, i) => sum + table.tokens(i, clearBefore), 0);
  const room = resolved.summaryRoom(keptTokens - hostTokens);
  // A carried summary stays whatever the in-turn budget (2026.9.6 passes 1): it quotes the user messages the turn's
  // main request showed, unless this window starts later than that one did (another budget class re-planned it, or
  // the host trimmed the list's front) and so leaves out a message it does not quote.
  const { handedBack } = call;
  const carried = [history[0], history[1]].find(
    (m) => isSummaryMessage(m) && ports.carriedSummaryHolds(call.identity, kept, textOf(m)),
  );
  const summary =
    carried !== undefined
      ? carried
      : await call.waited(
          "summary",
          freshSummary(ports, settings, call, {
            messages: shaping.view,
            windowStart: plan.start,
            fingerprint: table.fingerprint,
            windowTokens: plan.tokens,
            // The summary travels as a message: its framing comes out of the room too.
            budgetLeft: room - counter.countMessage(summaryMessage("")),
            counter,
            timestamp: coveredTime(shaping.view, plan.start, kept),
            budgetTokens: resolved.budget.tokens,
            budgetRaised: resolved.budget.source === "raised",
            handedBack,
          }),
        );
  const replaced = summary !== undefined && hostOwn;
  const messages = summary ? withSummaryAfterHostSummary(replaced ? kept.slice(1) : kept, summary) : kept;
  const summaryTokens = summary ? counter.countMessage(summary) : 0;
  const exactTokens = keptTokens - (replaced ? hostTokens : 0) + summaryTokens + call.replyPrimingTokens;
  const hostEstimate = resolved.hostEstimate(messages);
  const estimatedTokens = Math.max(exactTokens, resolved.hostPlan.host.rule === "none" ? 0 : hostEstimate);
  return {
    messages,
    summary,
    summaryTokens,
    exactTokens,
    hostEstimate,
    estimatedTokens,
    replacedHostSummary: replaced,
  };
}

/** The session summary for a planned window, as the view's summary message (undefined when none is due). */
async function freshSummary(
  ports: AssemblyPorts,
  settings: AgentSettings,
  call: AssemblyCall,
  request: Parameters<AssemblyPorts["summary"]>[2],
): Promise<unknown> {
  const summary = await ports.summary(settings, call.identity, request);
  return summary.text ? summaryMessage(summary.text, summary.timestamp ?? request.timestamp) : undefined;
}

/** True for 2026.4.x's compaction summary message when its summary is one the engine wrote. */
function isOwnCompactionSummary(message: unknown): boolean {
  if (roleOf(message) !== "compactionSummary") return false;
  const text = (message as { summary?: unknown }).summary;
  return typeof text === "string" && text.includes(SUMMARY_OPEN);
}

/** The time of the newest message a summary before `start` tells, else of the window's oldest dated message. */
function coveredTime(view: readonly unknown[], start: number, kept: readonly unknown[]): number | undefined {
  for (let i = Math.min(start, view.length) - 1; i >= 0; i--) {
    const t = timestampOf(view[i]);
    if (t !== undefined) return t;
  }
  for (const m of kept) {
    const t = timestampOf(m);
    if (t !== undefined) return t;
  }
  return undefined;
}

/** The view with the summary message first, or second behind the host's own compaction summary (2026.4.x). */
function withSummaryAfterHostSummary(kept: readonly unknown[], summary: unknown): unknown[] {
  return roleOf(kept[0]) === "compactionSummary" ? [kept[0], summary, ...kept.slice(1)] : [summary, ...kept];
}
