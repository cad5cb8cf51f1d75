import { sha256Hex, type ArtifactStore, countLines } from "../artifacts/index.js";
import type { AgentSettings } from "../config/schema.js";
import { LEDGER_MARKER, roleOf, textOf, toolResultIdOf } from "../host/messages.js";
import { isOversized } from "../results/shape-tool-result.js";
import { bestOriginal } from "./best-original.js";
import { captureSessionOf, TEE_SOURCE, type CaptureIndex, type CaptureSession } from "./capture-index.js";
import { parseHostCopy } from "../results/host-copy.js";
import type { ReadSpillOptions } from "./spill-file.js";

/** Inputs of {@link captureTurnOutputs}. */
export interface CaptureTurnOptions {
  messages: readonly unknown[];
  settings: AgentSettings;
  store: ArtifactStore;
  captures: CaptureIndex;
  origin: { agentId: string; sessionKey: string; sessionId?: string };
  /** Where the host's spill files may live. @default [os.tmpdir()] */
  spill?: ReadSpillOptions;
  /** The whole output of a call the full-exec wrapper teed, stored; undefined for any other call. */
  teedOutput?: (toolCallId: string, toolName: string) => Promise<TeedOutput | undefined>;
}

/** A whole output the full-exec wrapper teed, already stored. */
export interface TeedOutput {
  handle: string;
  chars: number;
  lines: number;
  /** Set when the store does not hold all of it (the capture cap). */
  partial?: string;
}

/**
 * Records a teed whole output under its call, beside the host's copy: the index links the two because the host's
 * copy is its tail; `hostTextSha256` links it to that very message too, when the caller has its text.
 */
export async function recordTeedOutput(
  captures: CaptureIndex,
  call: { toolCallId: string; toolName: string; session: CaptureSession },
  teed: TeedOutput,
  hostTextSha256?: string,
): Promise<void> {
  await captures.record({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ...call.session,
    handle: teed.handle,
    chars: teed.chars,
    lines: teed.lines,
    source: TEE_SOURCE,
    ...(teed.partial ? { partial: teed.partial } : {}),
    ...(hostTextSha256 ? { hostTextSha256 } : {}),
  });
}

/**
 * Stashes the full original of every oversized tool output of a turn. A
 * capture made earlier in this session (the `after_tool_call` hook) is used when the
 * host's copy verifiably derives from it, whatever the host did to the call
 * id; otherwise the best source the message itself holds: the host's exec
 * spill file, `details.aggregated` (2026.4.24), else the stored text.
 * Idempotent: content-addressed, one record per session, call and content.
 */
export async function captureTurnOutputs(options: CaptureTurnOptions): Promise<string[]> {
  const handles: string[] = [];
  const session = captureSessionOf(options.origin);
  if (!session.sessionKey && !session.sessionId) return handles;
  for (const message of options.messages) {
    if (roleOf(message) !== "toolResult") continue;
    const id = toolResultIdOf(message);
    if (!id) continue;
    const hostText = textOf(message);
    if (hostText.startsWith(LEDGER_MARKER)) continue;
    const existing = options.captures.resolve({ hostId: id, hostText, session });
    if (existing) {
      handles.push(existing.handle);
      continue;
    }
    const toolName = String((message as Record<string, unknown>).toolName ?? "unknown");
    // The whole output the full-exec wrapper teed, beside the host's copy recorded below: the index links it
    // to the host's text by that copy, whose tail it ends with (2026.4.24 cuts the text it persists).
    const teed = await options.teedOutput?.(id, toolName);
    if (teed) {
      await recordTeedOutput(options.captures, { toolCallId: id, toolName, session }, teed, sha256Hex(hostText));
      handles.push(teed.handle);
    }
    const original = await bestOriginal(message, "result-text", { ...options.spill, toolName });
    if (!original || !isOversized(original.text, options.settings)) continue;
    const cut = original.source === "result-text" ? parseHostCopy(original.text) : undefined;
    const partial =
      cut?.omitted !== undefined
        ? `the host kept ${cut.keptChars.toLocaleString("en-US")} of ${(cut.keptChars + cut.omitted).toLocaleString("en-US")} chars; the rest was not captured`
        : original.partial;
    const { handle } = await options.store.stash(original.text, {
      kind: "tool-output",
      origin: { toolName, toolCallId: id, agentId: options.origin.agentId, sessionKey: options.origin.sessionKey },
    });
    await options.captures.record({
      toolCallId: id,
      toolName,
      ...session,
      handle,
      chars: original.text.length,
      lines: countLines(original.text),
      source: original.source,
      ...(partial ? { partial } : {}),
      ...(original.source !== "result-text" ? { hostTextSha256: sha256Hex(hostText) } : {}),
    });
    handles.push(handle);
  }
  return handles;
}
