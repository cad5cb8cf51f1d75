import { promises as fsp } from "node:fs";
import { isInternalSessionKey } from "../host/normalize.js";
import type { LedgerServices } from "./services.js";

/** What forgetting internal sessions touches: session state and the last views. */
export type InternalSessionDeps = Pick<LedgerServices, "sessions" | "lastViews">;

/**
 * Forgets internal sessions ({@link isInternalSessionKey}) an engine instance served: they are one-shot, nothing
 * the ledger learns there is worth keeping, and a state folder per memory flush would pile up. Pending writes are
 * flushed first, then their state folders and in-process views are removed. Artifacts they stashed stay in the
 * content-addressed store (shared, collected by `store gc`).
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
