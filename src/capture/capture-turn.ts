import { promises as fsp } from "node:fs";
import path from "node:path";
import type { ArtifactStore } from "../artifacts/store-types.js";
import type { AgentSettings } from "../config/schema.js";
import { LEDGER_MARKER, roleOf, textOf, toolResultIdOf } from "../host/messages.js";
import type { CaptureIndex } from "./capture-index.js";
import { isOversized } from "../assembly/shape-limits.js";

/** Largest spill file copied into the store. */
const MAX_SPILL_BYTES = 256 * 1024 * 1024;

/** Inputs of {@link captureTurnOutputs}. */
export interface CaptureTurnOptions {
  messages: readonly unknown[];
  settings: AgentSettings;
  store: ArtifactStore;
  captures: CaptureIndex;
  origin: { agentId: string; sessionKey: string };
}

/**
 * Stashes the full original of every oversized tool output of a turn, from the
 * best source the host left: the exec spill file (`details.fullOutputPath`,
 * 2026.9.x; copied, it is a temp file), `details.aggregated` (2026.4.24), else
 * the stored text. Idempotent: content-addressed, and a larger capture wins.
 */
export async function captureTurnOutputs(options: CaptureTurnOptions): Promise<string[]> {
  const handles: string[] = [];
  for (const message of options.messages) {
    if (roleOf(message) !== "toolResult") continue;
    const id = toolResultIdOf(message);
    if (!id) continue;
    const original = await bestOriginal(message);
    if (!original || original.text.startsWith(LEDGER_MARKER) || !isOversized(original.text, options.settings)) continue;
    const existing = options.captures.lookup(id);
    if (existing && existing.chars >= original.text.length) {
      handles.push(existing.handle);
      continue;
    }
    const toolName = String((message as Record<string, unknown>).toolName ?? "unknown");
    const { handle } = await options.store.stash(original.text, {
      kind: "tool-output",
      origin: { toolName, toolCallId: id, ...options.origin },
    });
    await options.captures.record({ toolCallId: id, toolName, handle, chars: original.text.length, source: original.source });
    handles.push(handle);
  }
  return handles;
}

async function bestOriginal(message: unknown): Promise<{ text: string; source: string } | undefined> {
  const details = (message as Record<string, unknown>).details as Record<string, unknown> | undefined;
  const stored = textOf(message);
  const spill = typeof details?.fullOutputPath === "string" ? details.fullOutputPath : undefined;
  if (spill && path.isAbsolute(spill)) {
    try {
      const stat = await fsp.stat(spill);
      if (stat.isFile() && stat.size <= MAX_SPILL_BYTES) {
        const text = await fsp.readFile(spill, "utf8");
        if (text.length >= stored.length) return { text, source: "spill-file" };
      }
    } catch {
      // The host deletes spill files; fall through to what the transcript holds.
    }
  }
  const aggregated = typeof details?.aggregated === "string" ? details.aggregated : undefined;
  if (aggregated && aggregated.length >= stored.length) return { text: aggregated, source: "aggregated" };
  return stored.length > 0 ? { text: stored, source: "result-text" } : undefined;
}
