/**
 * The stored whole output of one tool call, by the call's id: what `ledger_fetch {toolCallId}` reads.
 * A wrapped `exec` call whose command has ended is stored there and then, so the model can reach its
 * whole output in the very turn the call returned (on 2026.9.6 `after_tool_call` comes only after the
 * turn); otherwise the captures already recorded for the call in this session, fullest first.
 */
import type { LedgerServices } from "../../runtime/services.js";
import { captureIndexOf, type CaptureSession } from "../capture-index.js";
import { recordTeedOutput } from "../capture-turn.js";
import { takeTeedOutput } from "./take-teed.js";

/** What reading a call's stored output uses: captures and the tee registry. */
export type CallOutputDeps = Pick<
  LedgerServices,
  "root" | "state" | "settings" | "store" | "logger" | "events" | "processWide"
>;

/** The handle of the call's whole output, or undefined when nothing of it is stored (yet). */
export async function storedOutputOfCall(
  rt: CallOutputDeps,
  agentId: string,
  session: CaptureSession,
  toolCallId: string,
): Promise<string | undefined> {
  if (!session.sessionKey && !session.sessionId) return undefined;
  const index = captureIndexOf(rt, agentId);
  const call = { toolCallId, toolName: "exec", session };
  const teed = await takeTeedOutput(rt, { agentId, ...call }, (full) => recordTeedOutput(index, call, full));
  if (teed) return teed.handle;
  return index.ofCall(toolCallId, session)[0]?.handle;
}
