import type { AssemblyPorts } from "../assembly/ports.js";
import { settleCaptures } from "../capture/capture-hook.js";
import { captureIndexOf, captureSessionOf } from "../capture/capture-index.js";
import { readDebt, recordDebt } from "../host/raw-tally.js";
import type { LedgerServices } from "../runtime/services.js";
import { recordViewSnapshot } from "./view-snapshot.js";
import { carriedSummaryHolds, viewSummary } from "./view-summary.js";

/** What assembly's ports reach: captures, the summary, the view record, session state. */
export type AssemblyPortDeps = Pick<
  LedgerServices,
  "root" | "store" | "redact" | "views" | "logger" | "state" | "sessions" | "processWide"
>;

/**
 * Wires assembly's ports to this runtime: captures, the session summary, the debt reading, the view record
 * (`assembly/ports.ts`).
 */
export function createAssemblyPorts(deps: AssemblyPortDeps): AssemblyPorts {
  return {
    settleCaptures: (identity) => settleCaptures(deps, identity),
    capturedOriginals(identity) {
      const captures = captureIndexOf(deps, identity.agentId);
      const session = captureSessionOf(identity);
      return (hostId, hostText) => {
        const rec = captures.resolve({ hostId, hostText, session });
        if (!rec) return undefined;
        return {
          handle: rec.handle,
          chars: rec.chars,
          lines: rec.lines,
          ...(rec.partial ? { partial: rec.partial } : {}),
          get text() {
            return captures.textOf(rec);
          },
        };
      };
    },
    summary: (settings, identity, request) => viewSummary(deps, settings, identity, request),
    carriedSummaryHolds: (identity, messages, text) => carriedSummaryHolds(deps, identity, messages, text),
    measureDebt(identity, input) {
      const { tally, debt } = readDebt(input);
      let ofTurn = debt;
      // Applied to the cached state at once: the turn's reading so far is known when this returns.
      deps.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => {
        s.raw = tally;
        ofTurn = recordDebt(s, debt);
      });
      return ofTurn;
    },
    recordView: (settings, identity, snapshot) => recordViewSnapshot(deps, settings, identity, snapshot),
  };
}
