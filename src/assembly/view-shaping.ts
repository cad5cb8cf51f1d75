import type { AgentSettings } from "../config/schema.js";
import { newestUserIndex } from "../window/units.js";
import { createMessageTable, type MessageTable } from "../window/message-table.js";
import type { AssemblyCall } from "./assembly-call.js";
import { createClearingShaper, type ClearingDeps, type ClearingShaper } from "./cleared-shaper.js";
import type { FindCapturedOriginal } from "./ports.js";
import { reduceNewestUserTurn, type ReduceDeps } from "./reduce-user-turn.js";
import { createShaper, type Shaper, type ShaperDeps } from "./shaper.js";

/** The history as one call shapes it: the shaper, clearing on top of it, and the one table every later step reads. */
export interface ViewShaping {
  /** The history shaped (the newest user turn reduced when it alone did not fit). */
  view: unknown[];
  shaper: Shaper;
  clearing: ClearingShaper;
  table: MessageTable;
}

/** What shaping a view uses: the shapers' store, redaction and caches. */
export type ShapingDeps = ShaperDeps & ClearingDeps & ReduceDeps;

/**
 * An oversized newest user message is reduced (losslessly) before the one plan, not after a failed one. Only tool
 * results are shaped, so the user message's carried form is the message itself and is counted as it stands.
 */
export async function fitNewestUserTurn(
  deps: ReduceDeps,
  settings: AgentSettings,
  call: AssemblyCall,
): Promise<unknown[]> {
  const { messages, counter, identity } = call;
  const { messageBudget } = call.resolved;
  const newestUser = newestUserIndex(messages);
  if (newestUser < 0 || counter.countMessage(messages[newestUser]) <= messageBudget) return messages;
  return call.waited(
    "reduce",
    reduceNewestUserTurn({ deps, settings, identity, counter }, messages, newestUser, messageBudget),
  );
}

/** Builds the shaper, the clearing shaper and the message table of `view`, once, under `shaping` settings. */
export function shapeView(
  deps: ShaperDeps & ClearingDeps,
  shaping: AgentSettings,
  call: AssemblyCall,
  { view, findCaptured }: { view: unknown[]; findCaptured: FindCapturedOriginal },
): ViewShaping {
  const { counter, resolved } = call;
  const shaper = createShaper(deps, shaping, { identity: call.identity, messages: view, findCaptured });
  const clearing = createClearingShaper(deps, shaping, view, shaper);
  const table = createMessageTable(view, {
    carried: clearing.carried,
    tokens: (m) => counter.countMessage(m),
    hostChars: resolved.hostChars,
    charge: resolved.charge,
  });
  return { view, shaper, clearing, table };
}

/** The offload limits of a live turn whose tool results alone pass the budget: each result over a stub's size goes. */
const LIVE_TURN_OFFLOAD = { maxChars: 1_000, maxLines: 40, structuredMaxChars: 1_000 } as const;

/**
 * `shaping` for a live turn that does not fit (its calls and results pass the budget): every tool result larger
 * than a stub is offloaded to the store and stands as a stub citing it, so the turn is carried with each call
 * answered instead of dropped (a model that no longer sees its results issues the calls again). Undefined when
 * offloading is off.
 */
export function liveTurnShaping(shaping: AgentSettings): AgentSettings | undefined {
  const { offload } = shaping;
  if (!offload.enabled) return undefined;
  return {
    ...shaping,
    offload: {
      ...offload,
      maxChars: Math.min(offload.maxChars, LIVE_TURN_OFFLOAD.maxChars),
      maxLines: Math.min(offload.maxLines, LIVE_TURN_OFFLOAD.maxLines),
      structuredMaxChars: Math.min(offload.structuredMaxChars, LIVE_TURN_OFFLOAD.structuredMaxChars),
    },
  };
}
