import { stat } from "node:fs/promises";
import type { TokenCounter } from "../budget/count-message.js";
import type { WindowPlan } from "../budget/planner.js";
import type { AgentSettings } from "../config/schema.js";
import { fingerprintMessage, isGenuineUserMessage } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { LedgerRuntime } from "../runtime/ledger-runtime.js";
import { extendSummary } from "../summary/extend-summary.js";
import { reconcileSummary } from "../summary/reconcile.js";
import { renderSummaryReport } from "../summary/render-summary.js";
import { restoreFromCheckpointPack, sealCheckpoint } from "../summary/checkpoint.js";
import { isLedgerError } from "../errors.js";
import { countProblem } from "../state/session-state.js";
import { loadSummary, saveSummary } from "../summary/sidecar.js";
import { conversationEpoch, summaryPath } from "../summary/summary-epoch.js";
import { createSummaryState, type SummaryState } from "../summary/summary-state.js";

interface CachedSummary {
  state: SummaryState;
  mtimeMs: number;
  stateKey: string;
  renders: Map<number, { text: string; tokens: number }>;
}

const caches = new WeakMap<LedgerRuntime, Map<string, CachedSummary>>();

const reportedSidecars = new Set<string>();

/**
 * The sidecar, undefined when there is none yet, or "failed" when it exists
 * but cannot be read or parsed: then it is logged with its code (once per
 * file and process) and counted in the session's `problems`, and kept as is.
 */
async function loadSummaryOrReport(rt: LedgerRuntime, identity: SessionIdentity, file: string): Promise<SummaryState | undefined | "failed"> {
  try {
    return await loadSummary(file);
  } catch (err) {
    if ((err as { cause?: NodeJS.ErrnoException }).cause?.code === "ENOENT") return undefined;
    const code = isLedgerError(err) ? err.code : "io_failed";
    const message = (err as Error).message;
    if (!reportedSidecars.has(file)) {
      reportedSidecars.add(file);
      rt.logger.error(`summary sidecar problem ${code}: ${message}; it is left untouched for inspection (the summary is rebuilt in memory until it is fixed or removed)`);
      rt.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => countProblem(s, { code, message }));
    }
    return "failed";
  }
}

function cacheOf(rt: LedgerRuntime): Map<string, CachedSummary> {
  let cache = caches.get(rt);
  if (!cache) {
    cache = new Map();
    caches.set(rt, cache);
  }
  if (cache.size > 256) cache.delete(cache.keys().next().value as string);
  return cache;
}

/** Most dropped messages summarised in one call; older ones are counted, not read (bounded work per turn). */
export const MAX_SUMMARY_CATCH_UP = 2_000;

/** Inputs of {@link injectSummary}. */
export interface InjectSummaryInput {
  messages: readonly unknown[];
  plan: WindowPlan;
  /** Tokens still free inside the budget after the kept messages. */
  budgetLeft: number;
  counter: TokenCounter;
}

/**
 * Brings the summary up to the window's start and renders it when history
 * was trimmed or the window is under pressure. Its tokens always count inside
 * the budget: the rendering shrinks until it fits the room left, or is skipped.
 */
export async function injectSummary(
  rt: LedgerRuntime,
  settings: AgentSettings,
  identity: SessionIdentity,
  input: InjectSummaryInput,
): Promise<{ text?: string; tokens: number }> {
  if (!settings.summary.enabled) return { tokens: 0 };
  const { messages, plan } = input;
  const epoch = conversationEpoch(messages);
  const file = summaryPath(rt.sessions.dir(identity.agentId, identity.sessionKey), epoch);
  const cache = cacheOf(rt);
  const mtimeMs = await stat(file).then((st) => st.mtimeMs, () => -1);
  const cached = cache.get(file);
  let readFailed = false;
  let state: SummaryState;
  if (cached && cached.mtimeMs === mtimeMs) state = cached.state;
  else {
    const loaded = await loadSummaryOrReport(rt, identity, file);
    readFailed = loaded === "failed";
    state = loaded === "failed" || loaded === undefined ? createSummaryState(epoch) : loaded;
  }
  const before = JSON.stringify([state.coveredCount, state.coveredFingerprint, state.checkpoints.length]);
  const store = rt.store(identity.agentId);
  const reconciled = reconcileSummary(state, messages);
  state = reconciled.state;
  if (reconciled.restoreFrom) {
    const pack = await store.tryRead(reconciled.restoreFrom.handle).catch(() => undefined);
    if (pack) state = restoreFromCheckpointPack(pack.toString("utf8"), reconciled.restoreFrom);
  }
  const target = Math.min(plan.start, messages.length);
  if (target > state.coveredCount) {
    if (target - state.coveredCount > MAX_SUMMARY_CATCH_UP) {
      state = { ...state, coveredCount: target - MAX_SUMMARY_CATCH_UP, coveredFingerprint: fingerprintMessage(messages[target - MAX_SUMMARY_CATCH_UP - 1]) };
    }
    state = extendSummary(state, messages, target);
  }
  const redact = (text: string) => rt.redact(settings, text);
  const renders = new Map<number, ReturnType<typeof renderSummaryReport>>();
  const render = (maxChars: number) => {
    let report = renders.get(maxChars);
    if (!report) {
      report = renderSummaryReport(state, { maxChars, redact });
      renders.set(maxChars, report);
    }
    return report;
  };
  // Whatever the rendering condenses must stay reachable: seal a pack that holds the full record.
  // Only a changed record can newly need a pack; an unchanged one was checked when it changed.
  const changed = JSON.stringify([state.coveredCount, state.coveredFingerprint, state.checkpoints.length]) !== before;
  if (changed && render(settings.summary.maxInjectedChars).needsCheckpoint) {
    const sealed = await sealCheckpoint(state, {
      frontierIndex: target,
      frontierFingerprint: target > 0 ? fingerprintMessage(messages[target - 1]) : null,
      render: { maxChars: settings.summary.maxInjectedChars, redact },
      stash: (content) => store.stash(content, { kind: "checkpoint", format: "json", origin: { agentId: identity.agentId, sessionKey: identity.sessionKey } }),
    });
    state = sealed.state;
  }
  const stateKey = JSON.stringify([state.coveredCount, state.coveredFingerprint, state.checkpoints.length]);
  // A sidecar that could not be read is never overwritten: this turn's summary lives in memory only.
  if (stateKey !== before && !readFailed) await saveSummary(file, state);
  const entry: CachedSummary = {
    state,
    mtimeMs: stateKey !== before ? await stat(file).then((st) => st.mtimeMs, () => -1) : mtimeMs,
    // Rendered blocks survive across calls while the state is unchanged (warm turns re-render nothing).
    renders: cached && cached.stateKey === stateKey ? cached.renders : new Map(),
    stateKey,
  };
  if (!readFailed) cache.set(file, entry);

  const pressured = plan.tokens > settings.summary.injectAtShare * (plan.tokens + Math.max(0, input.budgetLeft));
  if (state.coveredCount === 0 || !(plan.start > 0 || pressured)) return { tokens: 0 };
  for (let maxChars = settings.summary.maxInjectedChars; maxChars >= 200; maxChars = Math.floor(maxChars / 2)) {
    let counted = entry.renders.get(maxChars);
    if (!counted) {
      const text = render(maxChars).text;
      counted = { text, tokens: input.counter.countText(text) };
      entry.renders.set(maxChars, counted);
    }
    if (counted.tokens <= input.budgetLeft) return { text: counted.text, tokens: counted.tokens };
  }
  return { tokens: 0 };
}
