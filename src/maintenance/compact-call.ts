import { hostPromptBudget } from "../host/host-budget.js";
import {
  isManualCompaction,
  locateTranscript,
  type HostContext,
  type HostParams,
  type SessionIdentity,
} from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { compactSession, type CompactDeps, type CompactOutcome } from "./compact.js";

/** What one compact() call uses: compaction's services and settings. */
export type CompactCallDeps = CompactDeps & Pick<LedgerServices, "settings">;

/**
 * One compact() call as the host line makes it: the budget it admits, the words it reads as "skip, run the model",
 * whether the user asked, and (where it sizes the raw transcript) the file the compaction is recorded in too.
 */
export async function compactForHost(
  deps: CompactCallDeps,
  host: Pick<HostContext, "semantics">,
  { params, identity }: { params: HostParams; identity: SessionIdentity },
): Promise<{ result: CompactOutcome; event: Record<string, unknown> }> {
  const settings = deps.settings(identity.agentId);
  const result = settings.enabled
    ? await compactSession(deps, settings, {
        identity,
        tokenBudget: hostPromptBudget(host.semantics, params.tokenBudget),
        force: params.force,
        currentTokenCount: params.currentTokenCount,
        skipReasonText: host.semantics.preflight?.skipReasonText,
        manual: isManualCompaction(params),
        ...(host.semantics.rawPrecheck && locateTranscript(params.sessionFile).kind === "jsonl"
          ? { hostTranscript: params.sessionFile as string }
          : {}),
      })
    : { ok: true, compacted: false, reason: "disabled" };
  const event = {
    force: params.force === true,
    compacted: result.compacted,
    reason: result.reason ?? null,
    ...(result.compacted ? {} : { details: result.result?.details ?? null }),
  };
  return { result, event };
}
