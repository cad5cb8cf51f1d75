import { clearToolResult, stripThinking, stubSummaryOf, textChars, toolMatcher, toolNameOf } from "../budget/clear-tool-results.js";
import type { AgentSettings } from "../config/schema.js";
import { blocksOf, roleOf } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import { resolveToolPolicy } from "../results/tool-policy.js";
import type { LedgerRuntime } from "../runtime/ledger-runtime.js";
import { createShaper, type Shaper } from "./shaper.js";

/** Shapes messages with old tool results cleared before a boundary. */
export interface ClearingShaper {
  /** Message `i` as the prompt carries it when results before `clearBefore` are cleared (-1: none). */
  shapeAt(index: number, clearBefore: number): unknown;
  /** Stores the originals of cleared inline results; returns the bytes newly stored (see {@link Shaper.flush}). */
  flush(maxNewBytes?: number): Promise<number>;
  /** Handles the cleared placeholders point at. */
  handles(): Set<string>;
}

// A cleared result shorter than this stays as it is: its placeholder would save nothing.
const MIN_CLEARED_CHARS = 400;
const HANDLE = /ledger:v1:sha256:[0-9a-f]{64}/;

/**
 * Clearing on top of the usual shaper. A result that was offloaded keeps its
 * handle; an inline one is stored first (through a shaper with minimal
 * thresholds), so every placeholder points at a fetchable original.
 */
export function createClearingShaper(rt: LedgerRuntime, settings: AgentSettings, identity: SessionIdentity, messages: readonly unknown[], shaper: Shaper): ClearingShaper {
  const { clearing } = settings;
  const excluded = toolMatcher(clearing.excludeTools);
  const memo = new Map<number, unknown>();
  const handles = new Set<string>();
  let forced: Shaper | undefined;
  const forcedSettings: AgentSettings = { ...settings, offload: { ...settings.offload, enabled: true, maxChars: 200, maxLines: 10, structuredMaxChars: 200, previewChars: 100 } };

  const cleared = (index: number): unknown => {
    if (memo.has(index)) return memo.get(index);
    const message = messages[index];
    const shaped = shaper.shape(index);
    let result = shaped;
    if (roleOf(message) === "toolResult") {
      const name = toolNameOf(message);
      if (!excluded(name) && resolveToolPolicy(name, settings.offload.tools) !== "full" && textChars(shaped) > MIN_CLEARED_CHARS) {
        let stub = stubIn(shaped);
        if (!stub) {
          forced ??= createShaper(rt, forcedSettings, identity, messages);
          stub = stubIn(forced.shape(index));
        }
        if (stub) {
          handles.add(stub.handle);
          result = clearToolResult(shaped, stub.handle, textChars(message), stubSummaryOf(stub.text));
        }
      }
    } else if (clearing.clearThinking) {
      result = stripThinking(shaped);
    }
    memo.set(index, result);
    return result;
  };

  return {
    shapeAt: (index, clearBefore) => (clearing.enabled && index < clearBefore ? cleared(index) : shaper.shape(index)),
    flush: async (maxNewBytes) => (forced ? forced.flush(maxNewBytes) : 0),
    handles: () => handles,
  };
}

function stubIn(message: unknown): { handle: string; text: string } | undefined {
  for (const block of blocksOf(message)) {
    const m = typeof block.text === "string" ? HANDLE.exec(block.text) : null;
    if (m) return { handle: m[0], text: block.text as string };
  }
  return undefined;
}
