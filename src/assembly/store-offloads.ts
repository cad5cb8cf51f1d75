import type { AgentSettings } from "../config/schema.js";
import { isLedgerError } from "../errors.js";
import type { LedgerServices } from "../runtime/services.js";
import type { AssemblyCall } from "./assembly-call.js";
import type { FindCapturedOriginal } from "./ports.js";
import { replanUncleared, type PlannedView } from "./plan-view.js";
import { shapeView, type ViewShaping } from "./view-shaping.js";
import type { ShaperDeps } from "./shaper.js";
import type { ClearingDeps } from "./cleared-shaper.js";

/** The view as it goes out: its shaping and plan (inline ones when the store refused), and the bytes stored. */
export interface StoredView {
  shaping: ViewShaping;
  planned: PlannedView;
  storedBytes: number;
}

/** What storing the offloads uses: the shapers' services, and the log for a refusal. */
export type StoreOffloadsDeps = ShaperDeps & ClearingDeps & Pick<LedgerServices, "logger" | "events">;

/**
 * Stores the originals the kept stubs cite, within the session's byte allowance. No handle may reach the prompt
 * unless its original is stored: when the store refuses, this turn's outputs stay inline (offload and clearing
 * off), shaped and planned under those settings.
 */
export async function storeOffloads(
  deps: StoreOffloadsDeps,
  settings: AgentSettings,
  call: AssemblyCall,
  shaped: { shaping: ViewShaping; planned: PlannedView; findCaptured: FindCapturedOriginal; artifactBytes: number },
): Promise<StoredView> {
  const { shaping, planned, findCaptured, artifactBytes } = shaped;
  try {
    const room = settings.limits.maxSessionBytes - artifactBytes;
    return { shaping, planned, storedBytes: await call.waited("store", shaping.shaper.flush(room)) };
  } catch (err) {
    if (!isLedgerError(err, "store_full")) throw err;
    const { identity } = call;
    deps.logger.warn(
      `offload refused session=${identity.sessionKey}: ${err.code}: ${err.message}; tool outputs stay inline this turn`,
    );
    void deps.events.write({
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
    const inlineShaping = shapeView(deps, inline, call, { view: shaping.view, findCaptured });
    return { shaping: inlineShaping, planned: replanUncleared(call, planned, inlineShaping), storedBytes: 0 };
  }
}
