import { LRUCache } from "lru-cache";
import type { AgentSettings } from "../config/schema.js";
import { LedgerError } from "../errors.js";
import { blocksOf, roleOf, toolResultIdOf } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { resolveToolPolicy } from "../config/tool-names.js";
import { firstHandle } from "../artifacts/index.js";
import { planToolResultShape, shapeLimitsOf, stubForText, type PendingStash } from "../results/shape-tool-result.js";
import type { FindCapturedOriginal } from "./ports.js";
import { stateSlot } from "../runtime/state-slots.js";

/** What a shaper uses: the store, the redaction patterns, the root its cache keys carry, its caches. */
export type ShaperDeps = Pick<LedgerServices, "root" | "store" | "redactPatterns" | "state">;

/** Lazily shapes the messages the planner visits; stashes happen in {@link Shaper.flush}. */
export interface Shaper {
  /** Message `i` as the prompt carries it (oversized tool output replaced by a stub). Memoised, synchronous. */
  shape: (index: number) => unknown;
  /**
   * Writes every pending original into the store (content-addressed,
   * idempotent) and returns the bytes newly stored. Throws `store_full` when
   * they would exceed `maxNewBytes` (the session's remaining allowance) or the store refuses.
   */
  flush(maxNewBytes?: number): Promise<number>;
  /** Handles of the stubs produced so far. */
  handles(): Set<string>;
  /** How many tool outputs were replaced by stubs. */
  offloaded(): number;
}

// Shaped messages per agent, by message identity: the host hands the same
// objects to every call in a process, so warm assembly re-shapes nothing.
// The stashes ride along: after a gc removed an original, a cache hit can still store it again.
type ShapedCache = WeakMap<object, Map<string, { result: unknown; stashes: PendingStash[] }>>;

// Handles this process already wrote: warm turns skip the store round trip (until a gc epoch changes).
const MAX_STASHED_MEMO = 100_000;
const SHAPED = stateSlot("shaper:shaped", (): ShapedCache => new WeakMap());
const STASHED = stateSlot("shaper:stashed", () => new LRUCache<string, true>({ max: MAX_STASHED_MEMO }));
// The store's gc epoch per agent when this process last wrote: a newer epoch empties the stash memo.
const GC_EPOCHS = stateSlot("shaper:gc-epochs", () => new Map<string, number>());

/** The history one shaper shapes, and whose it is. */
export interface ShaperView {
  identity: SessionIdentity;
  messages: readonly unknown[];
  /** Where a host-cut result's captured original is found (none: every output is shaped from the host's copy). */
  findCaptured?: FindCapturedOriginal;
}

/**
 * Creates the shaper for one assemble call. Shaping is synchronous and
 * deterministic (the handle is the SHA-256 of the original, computed here);
 * the write happens in `flush()`, before the prompt is returned, so every
 * handle the model sees is fetchable.
 */
export function createShaper(deps: ShaperDeps, settings: AgentSettings, view: ShaperView): Shaper {
  const { identity, messages, findCaptured = () => undefined } = view;
  const shapedCache = deps.state.get(SHAPED);
  const stashed = deps.state.get(STASHED);
  const gcEpochs = deps.state.get(GC_EPOCHS);
  const memo = new Map<number, unknown>();
  const pending = new Map<string, PendingStash>();
  const handles = new Set<string>();
  let offloaded = 0;
  // Keyed by store root, agent and shaping settings: another runtime or config must not reuse these shapes.
  const cacheKey = shapeCacheKey(
    deps,
    deps.root,
    identity.agentId,
    settings.offload,
    settings.schemaStrip,
    settings.redaction,
  );

  const limits = shapeLimitsOf(settings);
  const shapeMessage = (message: unknown): unknown => {
    if (!settings.offload.enabled || roleOf(message) !== "toolResult" || !message || typeof message !== "object")
      return message;
    const rec = message as Record<string, unknown>;
    const toolName = String(rec.toolName ?? "unknown");
    const policy = resolveToolPolicy(toolName, settings.offload.tools);
    const callId = toolResultIdOf(message);
    const origin = {
      toolName,
      ...(callId ? { toolCallId: callId } : {}),
      agentId: identity.agentId,
      sessionKey: identity.sessionKey,
    };
    const exitCode = exitCodeOf(rec.details);
    let changed = false;
    const next = blocksOf(message).map((block) => {
      if (typeof block.text !== "string") return block;
      const plan = planToolResultShape(block.text, {
        toolName,
        policy,
        limits,
        origin,
        exitCode,
        redact: settings.redaction.enabled,
        redactPatterns: deps.redactPatterns(settings),
      });
      if (!plan.changed) return block;
      changed = true;
      // The host truncated (and may have re-id'd) this output; a capture of this session it verifiably derives from
      // holds the original.
      const captured = plan.decision === "offloaded" && callId ? findCaptured(callId, block.text) : undefined;
      if (captured) {
        handles.add(captured.handle);
        offloaded++;
        const coverage = {
          chars: captured.chars,
          lines: captured.lines,
          ...(captured.partial ? { partial: captured.partial } : {}),
        };
        // Summary and preview from the captured original, so they agree with the size the stub states.
        const text = stubForText(captured.handle, captured.text ?? block.text, {
          toolName,
          origin,
          exitCode,
          limits,
          coverage,
          redact: settings.redaction.enabled,
          redactPatterns: deps.redactPatterns(settings),
        });
        return { type: "text", text };
      }
      for (const s of plan.stashes) pending.set(s.handle, s);
      for (const h of plan.handles) handles.add(h);
      if (plan.decision === "offloaded") offloaded++;
      return { type: "text", text: plan.text };
    });
    return changed ? { ...rec, content: next } : message;
  };

  const shape = (index: number): unknown => {
    if (memo.has(index)) return memo.get(index);
    const message = messages[index];
    let result: unknown;
    const cacheable = message !== null && typeof message === "object" && roleOf(message) === "toolResult";
    const perMessage = cacheable ? shapedCache.get(message as object) : undefined;
    const cached = perMessage?.get(cacheKey);
    if (cached) {
      result = cached.result;
      for (const st of cached.stashes) pending.set(st.handle, st);
      if (result !== message) {
        for (const block of blocksOf(result)) {
          const handle = typeof block.text === "string" ? firstHandle(block.text) : undefined;
          if (handle) {
            handles.add(handle);
            offloaded++;
          }
        }
      }
    } else {
      const before = new Set(pending.keys());
      result = shapeMessage(message);
      const stashes = [...pending.values()].filter((st) => !before.has(st.handle));
      if (cacheable && result !== message) {
        const map = perMessage ?? new Map<string, { result: unknown; stashes: PendingStash[] }>();
        map.set(cacheKey, { result, stashes });
        shapedCache.set(message as object, map);
      } else if (cacheable && !perMessage) {
        shapedCache.set(message as object, new Map([[cacheKey, { result: message, stashes: [] }]]));
      }
    }
    memo.set(index, result);
    return result;
  };

  return {
    shape,
    async flush(maxNewBytes = Number.POSITIVE_INFINITY) {
      const store = deps.store(identity.agentId);
      // A gc (any process) removed artifacts since this process last looked: forget what it believed stored.
      const epoch = store.gcEpoch();
      if (gcEpochs.get(store.root) !== epoch) {
        gcEpochs.set(store.root, epoch);
        for (const key of [...stashed.keys()]) if (key.startsWith(`${store.root}\u0000`)) stashed.delete(key);
      }
      const todo = [...pending].filter(([handle]) => !stashed.has(`${store.root}\u0000${handle}`));
      const wanted = todo.reduce((sum, [, p]) => sum + Buffer.byteLength(p.content), 0);
      if (wanted > maxNewBytes) {
        throw new LedgerError(
          "store_full",
          `Expected at most ${Math.max(0, Math.floor(maxNewBytes))} more artifact bytes for this session (limits.maxSessionBytes), got ${wanted}`,
        );
      }
      let created = 0;
      for (const [handle, p] of todo) {
        const res = await store.stash(p.content, p.info);
        if (res.created) created += res.meta.bytes;
        stashed.set(`${store.root}\u0000${handle}`, true);
      }
      pending.clear();
      return created;
    },
    handles: () => handles,
    offloaded: () => offloaded,
  };
}

function exitCodeOf(details: unknown): number | null | undefined {
  if (!details || typeof details !== "object") return undefined;
  const code = (details as Record<string, unknown>).exitCode;
  return typeof code === "number" ? code : undefined;
}

/**
 * Keys of the per-message shape caches. A key is rebuilt on every assemble from the
 * settings it depends on; handing back the one string already in use (rather than an
 * equal new one) lets every cache lookup of the call compare by identity instead of
 * comparing a long key character by character, once per message.
 */
const MAX_KEYS = 1_024;
const INTERNED_KEYS = stateSlot("shape-cache-keys", () => new LRUCache<string, string>({ max: MAX_KEYS }));

/** The canonical key for `parts` (root, agent, the settings a shape depends on), interned in the runtime. */
export function shapeCacheKey(deps: Pick<LedgerServices, "state">, ...parts: unknown[]): string {
  const interned = deps.state.get(INTERNED_KEYS);
  const key = JSON.stringify(parts);
  const known = interned.get(key);
  if (known !== undefined) return known;
  interned.set(key, key);
  return key;
}
