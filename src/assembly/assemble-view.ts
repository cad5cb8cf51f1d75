import { REPLY_PRIMING_TOKENS } from "../budget/count-projection.js";
import { planWindow, type WindowPlan } from "../budget/planner.js";
import { newestUserIndex } from "../budget/units.js";
import { recordWindow } from "../budget/window-anchors.js";
import { capInlineOutputs } from "../budget/inline-cap.js";
import type { AgentSettings } from "../config/schema.js";
import { isLedgerError } from "../errors.js";
import { fingerprintMessage } from "../host/messages.js";
import { hostPromptBudget, normalizeBudget, type HostGeneration, type NormalizedBudget, type SessionIdentity } from "../host/normalize.js";
import { advanceTally } from "../maintenance/raw-tally.js";
import type { LastView, LedgerRuntime } from "../runtime/ledger-runtime.js";
import { recordDebt, type DebtReading } from "../state/session-state.js";
import { createClearingShaper } from "./cleared-shaper.js";
import { planElasticWindow } from "../budget/elastic-window.js";
import { createShaper } from "./shaper.js";
import { reduceNewestUserTurn } from "./reduce-user-turn.js";
import { injectSummary } from "./inject-summary.js";

/** Inputs of {@link assembleView}. */
export interface AssembleViewInput {
  identity: SessionIdentity;
  messages: unknown;
  tokenBudget: unknown;
  model?: unknown;
  /** Which host generation is calling (its budget means different things). */
  generation?: HostGeneration;
}

/** What assemble returns to the host, plus the ledger's own reading. */
export interface AssembledView {
  messages: unknown[];
  estimatedTokens: number;
  promptAuthority: "assembled";
  systemPromptAddition?: string;
  /** Extra metadata: the maintenance-debt reading and the plan, for logs and tests. */
  ledger: {
    debt: DebtReading;
    budget: NormalizedBudget;
    plan: Pick<WindowPlan, "start" | "reason" | "replanned" | "overBudget"> & { kept: number; excluded: number };
    offloaded: number;
    summaryInjected: boolean;
  };
}

/**
 * Plans the prompt under the budget: shape tool results (offload), keep the
 * newest history that fits (append-stable), reduce an oversized newest user
 * turn losslessly, inject the summary when history was trimmed, and measure
 * raw-history pressure as maintenance debt (reported, never acted on here).
 */
export async function assembleView(rt: LedgerRuntime, settings: AgentSettings, input: AssembleViewInput): Promise<AssembledView> {
  const { identity } = input;
  const messages = Array.isArray(input.messages) ? (input.messages as unknown[]) : [];
  const modelId = typeof input.model === "string" ? input.model : undefined;
  const counter = rt.counter(settings, modelId);
  const budget = normalizeBudget(hostPromptBudget(input.generation ?? "2026.9", input.tokenBudget), {
    fallbackTokens: settings.budget.fallbackBudgetTokens,
    minTokens: settings.budget.minBudgetTokens,
  });
  const margin = Math.ceil(budget.tokens * settings.budget.safetyMarginRatio) + settings.budget.safetyMarginTokens;
  const summaryReserve = settings.summary.enabled ? Math.ceil(settings.summary.maxInjectedChars / 3) + 16 : 0;
  const messageBudget = Math.max(1, budget.tokens - margin - summaryReserve - REPLY_PRIMING_TOKENS);

  const state = await rt.sessions.read(identity.agentId, identity.sessionKey);
  let view = messages;
  const shaping = capInlineOutputs(settings, messageBudget);
  let shaper = createShaper(rt, shaping, identity, view);
  // An oversized newest user message is reduced (losslessly) before the one plan, not after a failed one.
  const newestUser = newestUserIndex(view);
  if (newestUser >= 0 && counter.countMessage(shaper.shape(newestUser)) > messageBudget) {
    view = await reduceNewestUserTurn(rt, settings, identity, view, newestUser, messageBudget, counter);
    shaper = createShaper(rt, shaping, identity, view);
  }
  let clearing = createClearingShaper(rt, shaping, view, shaper);
  const windows = planElasticWindow(state, settings, { messages: view, hostBudget: budget.tokens, messageBudget, newestUser, count: (i, clearBefore) => counter.countMessage(clearing.shapeAt(i, clearBefore)) });
  let { plan } = windows;
  let clearBefore = windows.clearBefore;

  const shapeKept = (i: number) => clearing.shapeAt(i, clearBefore);
  let kept = plan.kept.map(shapeKept);
  let storedBytes = 0;
  try {
    storedBytes = await shaper.flush(settings.limits.maxSessionBytes - (state.artifactBytes ?? 0));
  } catch (err) {
    if (!isLedgerError(err, "store_full")) throw err;
    // No handle may reach the prompt unless its original is stored: keep outputs inline this turn, re-planned by exact count.
    rt.logger.warn(`offload refused session=${identity.sessionKey}: ${err.code}: ${err.message}; tool outputs stay inline this turn`);
    void rt.events.write({ op: "offload:refused", agentId: identity.agentId, sessionKey: identity.sessionKey, reason: err.message });
    const inline = { ...settings, offload: { ...settings.offload, enabled: false }, clearing: { ...settings.clearing, enabled: false } };
    shaper = createShaper(rt, inline, identity, view);
    clearing = createClearingShaper(rt, inline, view, shaper);
    clearBefore = -1;
    plan = planWindow({ messages: view, budget: messageBudget, count: (i) => counter.countMessage(shaper.shape(i)), fingerprint: (i) => fingerprintMessage(view[i]), target: windows.target });
    kept = plan.kept.map(shapeKept);
  }
  const summary = await injectSummary(rt, settings, identity, {
    messages: view,
    plan,
    budgetLeft: budget.tokens - margin - plan.tokens - REPLY_PRIMING_TOKENS,
    counter,
  });
  // Framing included: what the counter says the returned list costs (reply priming once).
  const estimatedTokens = plan.tokens + summary.tokens + REPLY_PRIMING_TOKENS;

  rememberView(rt, identity, {
    messages: view,
    shape: shapeKept,
    budgetTokens: budget.tokens,
    messageBudget,
    tokens: estimatedTokens,
    start: plan.start,
    handles: new Set([...shaper.handles(), ...clearing.handles()]),
  });

  const { tally } = advanceTally(state.raw, messages, settings.maintenance.minEntryChars);
  const debt: DebtReading = {
    at: new Date().toISOString(),
    rawHistoryTokens: tally.tokens,
    assembledTokens: estimatedTokens,
    promptBudget: budget.tokens,
    debtTokens: Math.max(0, tally.tokens - budget.tokens),
    reducibleChars: tally.reducibleChars,
  };
  const anchors = recordWindow(windows.anchors, windows.previous, { plan, budget: messageBudget, total: view.length, clearBefore, fingerprint: (i) => fingerprintMessage(view[i]) });
  const frontier = plan.kept.length > 0 ? { start: plan.start, anchor: fingerprintMessage(view[plan.start]), total: view.length } : null;
  rt.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => {
    s.raw = tally;
    s.frontier = frontier;
    s.windows = anchors;
    s.sessionId = identity.sessionId;
    s.artifactBytes = (s.artifactBytes ?? 0) + storedBytes;
    recordDebt(s, debt);
  });
  return {
    messages: kept,
    estimatedTokens,
    promptAuthority: "assembled",
    ...(summary.text ? { systemPromptAddition: summary.text } : {}),
    ledger: {
      debt,
      budget,
      plan: { start: plan.start, reason: plan.reason, replanned: plan.replanned, overBudget: plan.overBudget, kept: plan.kept.length, excluded: plan.excluded.length },
      offloaded: shaper.offloaded(),
      summaryInjected: summary.text !== undefined,
    },
  };
}

const MAX_VIEWS = 64;

function rememberView(rt: LedgerRuntime, identity: SessionIdentity, view: LastView): void {
  const key = `${identity.agentId}\u0000${identity.sessionKey}`;
  const previous = rt.lastViews.get(key);
  // 2026.9.x also assembles partial histories inside a turn (tool-loop retries); compact()
  // must plan on the fullest view of the current conversation, not the last partial one.
  if (previous && previous.messages.length > view.messages.length && isSliceOf(view.messages, previous.messages)) return;
  rt.lastViews.delete(key);
  rt.lastViews.set(key, view);
  if (rt.lastViews.size > MAX_VIEWS) {
    const oldest = rt.lastViews.keys().next().value;
    if (oldest !== undefined) rt.lastViews.delete(oldest);
  }
}

/** True when `part` is empty or its first message occurs in `whole` (a shorter slice of the same history). */
function isSliceOf(part: readonly unknown[], whole: readonly unknown[]): boolean {
  if (part.length === 0) return true;
  const first = fingerprintMessage(part[0]);
  return whole.some((m) => fingerprintMessage(m) === first);
}
