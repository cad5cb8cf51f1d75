/**
 * The stored whole output of one tool call, by the call's id: what `ledger_fetch {toolCallId}` reads.
 * A wrapped `exec` call whose command has ended is stored there and then, so the model can reach its
 * whole output in the very turn the call returned (on 2026.9.6 `after_tool_call` usually comes only
 * after the turn); otherwise the captures already recorded for the call in this session, fullest first.
 *
 * The host fires `after_tool_call` without waiting for it, so its store of the same call may be under
 * way when the fetch asks: the call is then in neither the registry nor the index, and the fetch waits
 * for that store (bounded) rather than answer "none" for an output that is seconds from stored.
 */
import { LedgerError } from "../../errors.js";
import type { LedgerServices } from "../../runtime/services.js";
import { captureIndexOf, type CaptureSession } from "../capture-index.js";
import { recordTeedOutput } from "../capture-turn.js";
import { takeTeedOutput } from "./take-teed.js";
import { teeRegistryOf } from "./tee-registry.js";

/** What reading a call's stored output uses: captures and the tee registry. */
export type CallOutputDeps = Pick<
  LedgerServices,
  "root" | "state" | "settings" | "store" | "logger" | "events" | "processWide"
>;

/** How long a fetch by call id waits at most for a store under way, or a background command, to end. */
const CALL_OUTPUT_WAIT_MS = 15_000;

/** The call a fetch names, in the calling session. */
export interface CallOutputQuery {
  session: CaptureSession;
  toolCallId: string;
  /** How long to wait for a store under way. @default CALL_OUTPUT_WAIT_MS */
  waitMs?: number;
}

/** `work`'s value, or `timedOut` when it has not settled within `ms`. */
async function within<T>(work: Promise<T>, ms: number, timedOut: symbol): Promise<T | symbol> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<symbol>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The handle of the call's whole output, or undefined when nothing of it is stored. Throws `artifact_not_found`
 * when its store is still under way after the wait (a command the host sent to the background still runs).
 */
export async function storedOutputOfCall(
  deps: CallOutputDeps,
  agentId: string,
  query: CallOutputQuery,
): Promise<string | undefined> {
  const { session, toolCallId } = query;
  if (!session.sessionKey && !session.sessionId) return undefined;
  const index = captureIndexOf(deps, agentId);
  const call = { toolCallId, toolName: "exec", session };
  const teed = await takeTeedOutput(deps, { agentId, ...call }, (full) => recordTeedOutput(index, call, full));
  if (teed) return teed.handle;
  const storing = teeRegistryOf(deps).whenStored(toolCallId, session);
  if (storing) {
    const waitMs = query.waitMs ?? CALL_OUTPUT_WAIT_MS;
    const timedOut = Symbol("timed out");
    const full = await within(storing, waitMs, timedOut);
    if (full === timedOut)
      throw new LedgerError(
        "artifact_not_found",
        `Expected the whole output of call ${toolCallId} within ${waitMs} ms, got none yet: its command is still running (the host sent it to the background) or its output is still being stored; fetch it again once the call has completed`,
      );
    if (full && typeof full === "object") return full.handle;
  }
  return index.ofCall(toolCallId, session)[0]?.handle;
}
