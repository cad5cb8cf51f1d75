import { clearToolResult, stripThinking, stubSummaryOf, textChars } from "../results/clear-tool-results.js";
import { toolNamesMatcher } from "../config/tool-names.js";
import { toolNameOf } from "../host/messages.js";
import { firstHandle } from "../artifacts/index.js";
import type { AgentSettings } from "../config/schema.js";
import { blocksOf, roleOf, textOf } from "../host/messages.js";
import { summarizeOutput } from "../results/summarize-output.js";
import { resolveToolPolicy } from "../config/tool-names.js";
import type { LedgerServices } from "../runtime/services.js";
import { shapeCacheKey, type Shaper } from "./shaper.js";
import { stateSlot } from "../runtime/state-slots.js";

/** What the clearing shaper uses: redaction, the root its cache keys carry, its caches. */
export type ClearingDeps = Pick<LedgerServices, "root" | "redact" | "state">;

/** Shapes messages with old tool results cleared before a boundary. */
export interface ClearingShaper {
  /** Message `i` as the prompt carries it, its old tool result cleared or not (clearing off: always as shaped). */
  carried(index: number, cleared: boolean): unknown;
  /** Handles the cleared placeholders point at. */
  handles(): Set<string>;
}

// A cleared result shorter than this stays as it is: its placeholder would save little.
const MIN_CLEARED_CHARS = 400;

function handleCitedBy(citedHandle: WeakMap<object, string | null>, result: unknown): string | undefined {
  if (result === null || typeof result !== "object") return undefined;
  let handle = citedHandle.get(result);
  if (handle === undefined)
    citedHandle.set(result, (handle = roleOf(result) === "toolResult" ? (firstHandle(textOf(result)) ?? null) : null));
  return handle ?? undefined;
}

// Cleared forms per message object and settings, across calls: a standing window re-counts
// the same objects (the counter's identity cache), and nothing is rebuilt per call.
const CLEARED = stateSlot("clearing:cleared", () => new WeakMap<object, Map<string, unknown>>());
// The handle a cleared result cites, per result object: the text is not re-read on every call.
const CITED_HANDLE = stateSlot("clearing:cited-handle", () => new WeakMap<object, string | null>());

/**
 * Clearing on top of the usual shaper. A result that was offloaded keeps its
 * handle (the original stays fetchable with `ledger_fetch`); an inline one
 * (under the offload thresholds, so small) keeps a one-line summary and the
 * note that the tool can be rerun, as Anthropic's `clear_tool_uses` does: no
 * store write on the prompt path. Its original stays in the host transcript.
 */
export function createClearingShaper(
  deps: ClearingDeps,
  settings: AgentSettings,
  messages: readonly unknown[],
  shaper: Shaper,
): ClearingShaper {
  const { clearing } = settings;
  const excluded = toolNamesMatcher(clearing.excludeTools);
  const handles = new Set<string>();
  const cacheKey = shapeCacheKey(deps, deps.root, settings.offload, settings.clearing, settings.redaction);
  const clearedCache = deps.state.get(CLEARED);
  const citedHandle = deps.state.get(CITED_HANDLE);

  const clearedOf = (index: number): unknown => {
    const message = messages[index];
    const shaped = shaper.shape(index);
    if (roleOf(message) === "toolResult") {
      const name = toolNameOf(message);
      if (
        excluded(name) ||
        resolveToolPolicy(name, settings.offload.tools) === "full" ||
        textChars(shaped) <= MIN_CLEARED_CHARS
      )
        return shaped;
      const stub = stubIn(shaped);
      if (stub) return clearToolResult(shaped, stub.handle, textChars(message), stubSummaryOf(stub.text));
      const gist = summarizeOutput(textOf(message), { toolName: name });
      return clearToolResult(shaped, undefined, textChars(message), deps.redact(settings, gist));
    }
    return clearing.clearThinking ? stripThinking(shaped) : shaped;
  };

  const cleared = (index: number): unknown => {
    const message = messages[index];
    const key = message !== null && typeof message === "object" ? (message as object) : undefined;
    let result: unknown;
    const perMessage = key ? clearedCache.get(key) : undefined;
    if (perMessage?.has(cacheKey)) result = perMessage.get(cacheKey);
    else {
      result = clearedOf(index);
      if (key) clearedCache.set(key, (perMessage ?? new Map()).set(cacheKey, result));
    }
    const handle = handleCitedBy(citedHandle, result);
    if (handle && result !== shaper.shape(index)) handles.add(handle);
    return result;
  };

  return {
    carried: (index, isCleared) => (clearing.enabled && isCleared ? cleared(index) : shaper.shape(index)),
    handles: () => handles,
  };
}

function stubIn(message: unknown): { handle: string; text: string } | undefined {
  for (const block of blocksOf(message)) {
    const handle = typeof block.text === "string" ? firstHandle(block.text) : undefined;
    if (handle) return { handle, text: block.text as string };
  }
  return undefined;
}
