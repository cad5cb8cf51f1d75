import { promises as fsp } from "node:fs";
import type { LedgerServices } from "./services.js";

/** What forgetting internal sessions touches: session state and the last views. */
export type InternalSessionDeps = Pick<LedgerServices, "sessions" | "lastViews">;

/**
 * Sessions the host runs for itself (2026.9.x pre-compaction memory flush:
 * `agent:<id>:internal-session-effects:<uuid>`). They are one-shot: nothing the
 * ledger learns there is worth keeping, and a state folder per flush would pile up.
 */
export const INTERNAL_SESSION_KEY = /^agent:[^:]+:internal-session-effects:/;

/** True for a host-internal, one-shot session key. */
export function isInternalSessionKey(sessionKey: string): boolean {
  return INTERNAL_SESSION_KEY.test(sessionKey);
}

/**
 * Forgets internal sessions an engine instance served: pending writes are flushed
 * first, then their state folders and in-process views are removed. Artifacts they
 * stashed stay in the content-addressed store (shared, collected by `store gc`).
 */
export async function forgetInternalSessions(
  deps: InternalSessionDeps,
  sessions: Iterable<{ agentId: string; sessionKey: string }>,
): Promise<number> {
  await deps.sessions.flush();
  let removed = 0;
  for (const { agentId, sessionKey } of sessions) {
    if (!isInternalSessionKey(sessionKey)) continue;
    deps.lastViews.delete(`${agentId}\u0000${sessionKey}`);
    await fsp.rm(deps.sessions.dir(agentId, sessionKey), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
