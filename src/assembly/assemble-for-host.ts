/**
 * One assemble() call as the host makes it: the ledger's view (or the disabled agent's pass-through), the fields of
 * its event, and a log line when the raw history carries maintenance debt.
 */
import { asHostResult, type LedgerAssembleResult } from "../host/host-types.js";
import { asList, type HostContext, type HostParams, type SessionIdentity } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { assembleView, type AssembledView, type AssemblyDeps } from "./assemble-view.js";
import { passThroughView, type PassThroughDeps, type PlainView } from "./pass-through.js";
import type { AssemblyPorts } from "./ports.js";

/** What one assemble() call uses: assembly's services, settings and the measured request overhead. */
export type AssembleCallDeps = AssemblyDeps &
  PassThroughDeps &
  Pick<LedgerServices, "settings" | "requestOverhead" | "logger">;

/** Assembles the view the host asked for and says what was done (see the module comment). */
export async function assembleForHost(
  deps: AssembleCallDeps,
  ports: AssemblyPorts,
  host: Pick<HostContext, "generation" | "semantics" | "config">,
  { params, identity }: { params: HostParams; identity: SessionIdentity },
): Promise<{ result: LedgerAssembleResult; event: Record<string, unknown> }> {
  const settings = deps.settings(identity.agentId);
  const started = performance.now();
  const view: AssembledView | PlainView = settings.enabled
    ? await assembleView(deps, ports, settings, {
        identity,
        messages: params.messages,
        tokenBudget: params.tokenBudget,
        model: params.model,
        generation: host.generation,
        semantics: host.semantics,
        hostConfig: host.config,
        prompt: params.prompt,
        runtimeSettings: params.runtimeSettings,
        overhead: deps.requestOverhead.get(identity.agentId),
      })
    : passThroughView(deps, settings, params.messages, params.model);
  const event = {
    enabled: settings.enabled,
    tokenBudget: typeof params.tokenBudget === "number" ? params.tokenBudget : null,
    messagesIn: asList(params.messages).length,
    messagesOut: view.messages.length,
    estimatedTokens: view.estimatedTokens,
    ms: roundMs(performance.now() - started),
    ...(view.ledger ? ledgerFields(view.ledger) : {}),
  };
  if (view.ledger) logDebt(deps, identity, view.ledger.debt);
  return { result: asHostResult(view), event };
}

/** The ledger's reading of the view, as its event records it. */
function ledgerFields(ledger: AssembledView["ledger"]): Record<string, unknown> {
  return {
    debt: ledger.debt,
    plan: ledger.plan,
    hostBudget: ledger.host,
    offloaded: ledger.offloaded,
    summary: ledger.summaryInjected,
    waits: roundedMs(ledger.waits),
  };
}

/** One log line when the raw history carries maintenance debt. */
function logDebt(
  deps: Pick<LedgerServices, "logger">,
  identity: SessionIdentity,
  debt: AssembledView["ledger"]["debt"],
) {
  if (debt.debtTokens <= 0) return;
  deps.logger.info(
    `maintenance-debt session=${identity.sessionKey} raw=${debt.rawHistoryTokens} assembled=${debt.assembledTokens} budget=${debt.promptBudget} debt=${debt.debtTokens} reducible=${debt.reducibleChars}`,
  );
}

/** Milliseconds to two places, as the event log records them. */
function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function roundedMs<K extends string>(times: Partial<Record<K, number>>): Partial<Record<K, number>> {
  return Object.fromEntries(Object.entries<number | undefined>(times).map(([k, v]) => [k, roundMs(v ?? 0)])) as Partial<
    Record<K, number>
  >;
}
