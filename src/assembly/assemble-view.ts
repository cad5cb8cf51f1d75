import type { WindowPlan } from "../window/planner.js";
import type { AgentSettings } from "../config/schema.js";
import type { NormalizedBudget } from "../host/host-budget.js";
import type { DebtReading } from "../host/raw-tally.js";
import type { WindowState } from "../window/elastic-window.js";
import type { LedgerServices } from "../runtime/services.js";
import type { AssembleViewInput } from "./assemble-input.js";
import { openAssemblyCall, type AssemblyCall, type AssemblyWaits } from "./assembly-call.js";
import { attachSummary, type SummarizedView } from "./attach-summary.js";
import { planView, type PlannedView } from "./plan-view.js";
import type { AssemblyPorts, FindCapturedOriginal } from "./ports.js";
import { recordAssembly } from "./record-assembly.js";
import { storeOffloads, type StoredView } from "./store-offloads.js";
import { fitNewestUserTurn, liveTurnShaping, shapeView, type ShapingDeps, type ViewShaping } from "./view-shaping.js";

/** What one assembly uses besides its ports: counting, the shapers' store and caches, session state, logs. */
export type AssemblyDeps = ShapingDeps &
  Pick<LedgerServices, "counter" | "state" | "sessions" | "lastViews" | "logger" | "events">;

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

/**
 * Plans the prompt under the budget, as named steps over one table: resolve the call (history, counter, budget),
 * fit an oversized newest user turn losslessly, shape tool results (offload) and build the message table once,
 * plan the newest history that fits (append-stable), store the originals the stubs cite, attach the summary when
 * history was trimmed, and record the view, the debt reading (reported, never acted on here) and the anchors.
 */
export async function assembleView(
  deps: AssemblyDeps,
  ports: AssemblyPorts,
  settings: AgentSettings,
  input: AssembleViewInput,
): Promise<AssembledView> {
  const call = openAssemblyCall(deps, settings, input);
  const { identity } = call;
  // A tool result the after_tool_call hook is still storing: its stub cites the capture, not the host's cut copy.
  await call.waited("captures", ports.settleCaptures(identity));
  const state = await call.waited("state", deps.sessions.read(identity.agentId, identity.sessionKey));
  const findCaptured = ports.capturedOriginals(identity);
  const view = await fitNewestUserTurn(deps, settings, call);
  const { shaping, planned } = planShaped(deps, settings, call, { state, view, findCaptured });
  const stored = await storeOffloads(deps, settings, call, {
    shaping,
    planned,
    findCaptured,
    artifactBytes: state.artifactBytes ?? 0,
  });
  const out = await attachSummary(ports, settings, call, stored);
  const debt = recordAssembly(deps, ports, call, { settings, state, stored, out });
  return assembled(call, stored, out, debt);
}

/**
 * Shapes the history and plans the window; when the plan leaves part of the live turn out (its calls and results
 * pass the budget), shapes again with that turn's results offloaded ({@link liveTurnShaping}) and keeps the plan
 * that carries more of it.
 */
function planShaped(
  deps: AssemblyDeps,
  settings: AgentSettings,
  call: AssemblyCall,
  { state, view, findCaptured }: { state: WindowState; view: unknown[]; findCaptured: FindCapturedOriginal },
): { shaping: ViewShaping; planned: PlannedView } {
  const shaping = shapeView(deps, call.resolved.shaping, call, { view, findCaptured });
  const planned = planView(state, settings, call, shaping);
  const liveLeftOut = liveTurnLeftOut(planned, view.length);
  const tight = liveLeftOut > 0 ? liveTurnShaping(call.resolved.shaping) : undefined;
  if (!tight) return { shaping, planned };
  const tightShaping = shapeView(deps, tight, call, { view, findCaptured });
  const tightPlanned = planView(state, settings, call, tightShaping);
  return liveTurnLeftOut(tightPlanned, view.length) < liveLeftOut
    ? { shaping: tightShaping, planned: tightPlanned }
    : { shaping, planned };
}

/** Messages of the live turn (after the newest user message) the plan leaves out. */
function liveTurnLeftOut({ plan }: PlannedView, length: number): number {
  if (plan.newestUser < 0) return 0;
  const kept = new Set(plan.kept);
  let out = 0;
  for (let i = plan.newestUser + 1; i < length; i++) if (!kept.has(i)) out++;
  return out;
}

/** The host's answer and the ledger's reading of one assembly. */
function assembled(call: AssemblyCall, stored: StoredView, out: SummarizedView, debt: DebtReading): AssembledView {
  const { budget, hostPlan, rawHostUnits, hostUnits } = call.resolved;
  const { plan, keptIdx } = stored.planned;
  return {
    messages: out.messages,
    estimatedTokens: out.estimatedTokens,
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
        estimate: out.hostEstimate,
        exactTokens: out.exactTokens,
        contextWindow: hostPlan.contextWindow ?? null,
        maxOutputTokens: hostPlan.maxOutputTokens ?? null,
      },
      offloaded: stored.shaping.shaper.offloaded(),
      summaryInjected: out.summary !== undefined,
      waits: call.waits,
    },
  };
}
