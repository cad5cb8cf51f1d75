import { isOversized } from "../../results/shape-tool-result.js";
import type { LedgerRuntime } from "../../runtime/ledger-runtime.js";
import { TEE_SOURCE, type CaptureSession } from "../capture-index.js";
import { stashTeeOutput, type TeeCapture } from "./stash-tee.js";
import { removeTeeFile } from "./tee-files.js";
import { teeRegistryOf } from "./tee-registry.js";

/** One finished call whose teed output may be stored. */
export interface TeedCall {
  agentId: string;
  session: CaptureSession;
  toolCallId: string;
  toolName: string;
}

/**
 * Stores the teed output of a finished call, if the full-exec wrapper teed it, and forgets the call:
 * undefined when it did not, or when the tee gave nothing worth a handle (see {@link stashTeeOutput}).
 * `keep` (recording the capture) runs before engine calls waiting on this call are let go.
 */
export async function takeTeedOutput(
  rt: LedgerRuntime,
  call: TeedCall,
  keep?: (full: TeeCapture) => Promise<void>,
): Promise<TeeCapture | undefined> {
  const taken = teeRegistryOf(rt).take(call.toolCallId, call.session);
  if (!taken) return undefined;
  const settings = rt.settings(call.agentId);
  try {
    const full = await stashTeeOutput(taken.entry.file, {
      store: rt.store(call.agentId),
      origin: {
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        agentId: call.agentId,
        sessionKey: call.session.sessionKey ?? call.session.sessionId ?? "unknown",
      },
      oversized: (text) => isOversized(text, settings),
      oversizedBytes: 4 * settings.offload.maxChars,
    });
    if (full) await keep?.(full);
    void rt.events.write({
      op: full ? "capture" : "capture:skipped",
      agentId: call.agentId,
      toolName: call.toolName,
      toolCallId: call.toolCallId,
      source: TEE_SOURCE,
      ...(full
        ? {
            chars: full.chars,
            bytes: full.bytes,
            handle: full.handle,
            ...(full.partial ? { partial: full.partial } : {}),
            ...(full.binary ? { binary: full.binary } : {}),
          }
        : { reason: "nothing worth a handle, the command had not ended, or the tee file was not usable" }),
    });
    return full;
  } finally {
    taken.finish();
  }
}

/** Forgets a wrapped call that gave no result (the tool failed to run) and removes its tee file. */
export async function discardTeedOutput(rt: LedgerRuntime, toolCallId: string, session: CaptureSession): Promise<void> {
  const taken = teeRegistryOf(rt).take(toolCallId, session);
  if (!taken) return;
  await removeTeeFile(taken.entry.file);
  taken.finish();
}
