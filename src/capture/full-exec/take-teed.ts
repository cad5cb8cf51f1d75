import { isOversized } from "../../results/shape-tool-result.js";
import type { LedgerServices } from "../../runtime/services.js";
import { captureIndexOf, TEE_SOURCE, type CaptureSession } from "../capture-index.js";
import { recordTeedOutput } from "../capture-turn.js";
import { stashTeeOutput, type TeeCapture } from "./stash-tee.js";
import { readTeeState, removeTeeFile } from "./tee-files.js";
import { teeRegistryOf, type TeeEntry } from "./tee-registry.js";

/** What storing a teed output uses: settings, the store, logs, the tee registry, captures. */
export type TakeTeedDeps = Pick<
  LedgerServices,
  "root" | "state" | "settings" | "store" | "logger" | "events" | "processWide"
>;

/** One finished call whose teed output may be stored. */
export interface TeedCall {
  agentId: string;
  session: CaptureSession;
  toolCallId: string;
  toolName: string;
}

/** How often a command sent to the background is looked at for its end. */
const FOLLOW_POLL_MS = 250;

/** Stores the tee file of an ended command, writes the capture event; removes the file either way. */
async function storeEnded(
  deps: TakeTeedDeps,
  call: TeedCall & { file: string; background: boolean },
  keep: ((full: TeeCapture) => Promise<void>) | undefined,
): Promise<TeeCapture | undefined> {
  const { file, background } = call;
  const settings = deps.settings(call.agentId);
  const full = await stashTeeOutput(file, {
    store: deps.store(call.agentId),
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
  void deps.events.write({
    op: full ? "capture" : "capture:skipped",
    agentId: call.agentId,
    toolName: call.toolName,
    toolCallId: call.toolCallId,
    source: TEE_SOURCE,
    ...(background ? { background: true } : {}),
    ...(full
      ? {
          chars: full.chars,
          bytes: full.bytes,
          handle: full.handle,
          ...(full.partial ? { partial: full.partial } : {}),
          ...(full.binary ? { binary: full.binary } : {}),
        }
      : { reason: "nothing worth a handle, or the tee file was not usable" }),
  });
  return full;
}

/**
 * Follows a command still running when its call returned (the host sent it to the background): when
 * its stream ends, its whole output is stored and recorded under the call as any other; when it has
 * not ended by the entry's `followUntil` (the call's timeout and a grace), its file is removed. The
 * sweep leaves the file alone meanwhile. Settles with what was stored when the following ends; never
 * rejects.
 */
function followTeedOutput(
  deps: TakeTeedDeps,
  call: TeedCall,
  entry: TeeEntry,
  keep: ((full: TeeCapture) => Promise<void>) | undefined,
): Promise<TeeCapture | undefined> {
  const followed = teeRegistryOf(deps).follow(entry.file);
  // The turn that made the call has ended by then: the output is recorded under its call all the same.
  const record =
    keep ??
    ((full: TeeCapture) =>
      recordTeedOutput(
        captureIndexOf(deps, call.agentId),
        { toolCallId: call.toolCallId, toolName: call.toolName, session: call.session },
        full,
      ));
  const pause = () => new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS).unref?.());
  const follow = async (): Promise<TeeCapture | undefined> => {
    try {
      let state = await pause().then(() => readTeeState(entry.file));
      while (state.kind === "unfinished" && Date.now() < (entry.followUntil ?? 0))
        state = await pause().then(() => readTeeState(entry.file));
      followed.release();
      if (state.kind === "ended")
        return await storeEnded(deps, { ...call, file: entry.file, background: true }, record);
      await removeTeeFile(entry.file);
      void deps.events.write({
        op: "capture:skipped",
        agentId: call.agentId,
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        source: TEE_SOURCE,
        background: true,
        reason: state.kind === "unfinished" ? "the command had not ended by its timeout" : state.reason,
      });
      return undefined;
    } catch (err) {
      followed.release();
      await removeTeeFile(entry.file);
      deps.logger.warn(`full exec output of a background command not stored: ${(err as Error).message}`);
      return undefined;
    }
  };
  return follow();
}

/**
 * Stores the teed output of a finished call, if the full-exec wrapper teed it, and forgets the call:
 * undefined when it did not, or when the tee gave nothing worth a handle (see {@link stashTeeOutput}).
 * A command still running (sent to the background) is followed until it ends and stored then.
 * `keep` (recording the capture) runs before engine calls waiting on this call are let go.
 */
export async function takeTeedOutput(
  deps: TakeTeedDeps,
  call: TeedCall,
  keep?: (full: TeeCapture) => Promise<void>,
): Promise<TeeCapture | undefined> {
  const registry = teeRegistryOf(deps);
  const taken = registry.take(call.toolCallId, call.session);
  if (!taken) return undefined;
  let later: Promise<TeeCapture | undefined> | undefined;
  const now = (async () => {
    try {
      const state = await readTeeState(taken.entry.file);
      if (state.kind === "unfinished" && taken.entry.followUntil !== undefined) {
        later = followTeedOutput(deps, call, taken.entry, keep);
        return undefined;
      }
      return await storeEnded(deps, { ...call, file: taken.entry.file, background: false }, keep);
    } finally {
      taken.finish();
    }
  })();
  // Registered before this call yields: from the take on, another asker of the call waits for this store.
  registry.storing(
    taken.entry,
    now.then((full) => later ?? full),
  );
  return await now;
}

/** Forgets a wrapped call that gave no result (the tool failed to run) and removes its tee file. */
export async function discardTeedOutput(
  deps: TakeTeedDeps,
  toolCallId: string,
  session: CaptureSession,
): Promise<void> {
  const taken = teeRegistryOf(deps).take(toolCallId, session);
  if (!taken) return;
  await removeTeeFile(taken.entry.file);
  taken.finish();
}
