import type { AgentSettings } from "../config/schema.js";
import { isSummaryMessage, roleOf, summaryMessage } from "../host/messages.js";
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
  const keptTokens = keptIdx.reduce<number>((sum, i) => sum + table.tokens(i, clearBefore), 0);
  const room = resolved.summaryRoom(keptTokens);
  const carried = [history[0], history[1]].find(isSummaryMessage);
  const summary =
    carried !== undefined
      ? counter.countMessage(carried) <= room
        ? carried
        : undefined
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
          }),
        );
  const messages = summary ? withSummaryAfterHostSummary(kept, summary) : kept;
  const summaryTokens = summary ? counter.countMessage(summary) : 0;
  const exactTokens = keptTokens + summaryTokens + call.replyPrimingTokens;
  const hostEstimate = resolved.hostEstimate(messages);
  const estimatedTokens = Math.max(exactTokens, resolved.hostPlan.host.rule === "none" ? 0 : hostEstimate);
  return { messages, summary, summaryTokens, exactTokens, hostEstimate, estimatedTokens };
}

/** The session summary for a planned window, as the view's summary message (undefined when none is due). */
async function freshSummary(
  ports: AssemblyPorts,
  settings: AgentSettings,
  call: AssemblyCall,
  request: Parameters<AssemblyPorts["summary"]>[2],
): Promise<unknown> {
  const summary = await ports.summary(settings, call.identity, request);
  return summary.text ? summaryMessage(summary.text) : undefined;
}

/** The view with the summary message first, or second behind the host's own compaction summary (2026.4.x). */
function withSummaryAfterHostSummary(kept: readonly unknown[], summary: unknown): unknown[] {
  return roleOf(kept[0]) === "compactionSummary" ? [kept[0], summary, ...kept.slice(1)] : [summary, ...kept];
}
