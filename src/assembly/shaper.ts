import { handleForBytes } from "../artifacts/handle.js";
import { createCaptureIndex } from "../capture/capture-index.js";
import { isOversized } from "../capture/capture-turn.js";
import type { AgentSettings } from "../config/schema.js";
import { blocksOf, LEDGER_MARKER, roleOf, toolResultIdOf } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { LedgerRuntime } from "../runtime/ledger-runtime.js";
import { resolveToolPolicy } from "../results/tool-policy.js";
import { buildStub } from "../results/stub.js";

/** Lazily shapes the messages the planner visits; stashes happen in {@link Shaper.flush}. */
export interface Shaper {
  /** Message `i` as the prompt carries it (oversized tool output replaced by a stub). Memoised, synchronous. */
  shape: (index: number) => unknown;
  /** Writes every pending original into the store (content-addressed, idempotent). */
  flush(): Promise<void>;
  /** Handles of the stubs produced so far. */
  handles(): Set<string>;
  /** How many tool outputs were replaced by stubs. */
  offloaded(): number;
}

interface Pending {
  content: string;
  toolName: string;
  toolCallId: string | undefined;
}

// Shaped messages per agent, by message identity: the host hands the same
// objects to every call in a process, so warm assembly re-shapes nothing.
const shapedCache = new WeakMap<object, Map<string, unknown>>();

/**
 * Creates the shaper for one assemble call. Shaping is synchronous and
 * deterministic (the handle is the SHA-256 of the original, computed here);
 * the write happens in `flush()`, before the prompt is returned, so every
 * handle the model sees is fetchable.
 */
export function createShaper(rt: LedgerRuntime, settings: AgentSettings, identity: SessionIdentity, messages: readonly unknown[]): Shaper {
  const memo = new Map<number, unknown>();
  const pending = new Map<string, Pending>();
  const handles = new Set<string>();
  let offloaded = 0;
  const captures = createCaptureIndex(rt.root, identity.agentId);
  const cacheKey = `${identity.agentId}\u0000${settings.offload.enabled}`;

  const shapeMessage = (message: unknown, index: number): unknown => {
    if (!settings.offload.enabled || roleOf(message) !== "toolResult" || !message || typeof message !== "object") return message;
    const toolName = String((message as Record<string, unknown>).toolName ?? "unknown");
    const policy = resolveToolPolicy(toolName, settings.offload.tools);
    if (policy === "full" || policy === "strip") return message;
    const blocks = blocksOf(message);
    const callId = toolResultIdOf(message);
    const ephemeral = policy === "ephemeral";
    let changed = false;
    const next = blocks.map((block) => {
      const text = block.text;
      if (typeof text !== "string" || text.startsWith(LEDGER_MARKER)) return block;
      if (!ephemeral && !isOversized(text, settings)) return block;
      if (ephemeral && text.length < 200) return block;
      const captured = callId ? captures.lookup(callId) : undefined;
      const useCapture = captured !== undefined && captured.chars >= text.length;
      const handle = useCapture ? captured.handle : handleForBytes(text);
      if (!useCapture) pending.set(handle, { content: text, toolName, toolCallId: callId });
      handles.add(handle);
      offloaded++;
      changed = true;
      const stub = buildStub({ handle, text, previewChars: settings.offload.previewChars, label: toolName, totalChars: useCapture ? captured.chars : text.length });
      return { type: "text", text: rt.redact(settings, stub) };
    });
    return changed ? { ...(message as Record<string, unknown>), content: next } : message;
  };

  const shape = (index: number): unknown => {
    if (memo.has(index)) return memo.get(index);
    const message = messages[index];
    let result: unknown;
    const cacheable = message !== null && typeof message === "object" && roleOf(message) === "toolResult";
    const perMessage = cacheable ? shapedCache.get(message as object) : undefined;
    if (perMessage?.has(cacheKey)) {
      result = perMessage.get(cacheKey);
      if (result !== message) {
        for (const block of blocksOf(result)) {
          const m = typeof block.text === "string" ? HANDLE_IN_STUB.exec(block.text) : null;
          if (m) {
            handles.add(m[0]);
            offloaded++;
          }
        }
      }
    } else {
      result = shapeMessage(message, index);
      if (cacheable && result !== message) {
        const map = perMessage ?? new Map<string, unknown>();
        map.set(cacheKey, result);
        shapedCache.set(message as object, map);
      } else if (cacheable && !perMessage) {
        shapedCache.set(message as object, new Map([[cacheKey, message]]));
      }
    }
    memo.set(index, result);
    return result;
  };

  return {
    shape,
    async flush() {
      const store = rt.store(identity.agentId);
      for (const [handle, p] of pending) {
        if (stashed.has(handle)) continue;
        await store.stash(p.content, {
          kind: "tool-output",
          origin: { toolName: p.toolName, ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}), agentId: identity.agentId, sessionKey: identity.sessionKey },
        });
        stashed.add(handle);
      }
      pending.clear();
    },
    handles: () => handles,
    offloaded: () => offloaded,
  };
}

const HANDLE_IN_STUB = /ledger:v1:sha256:[0-9a-f]{64}/;

// Handles this process already wrote: warm turns skip the store round trip.
const stashed = new Set<string>();
