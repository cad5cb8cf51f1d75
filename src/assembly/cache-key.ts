import { LRUCache } from "lru-cache";
import type { LedgerRuntime } from "../runtime/ledger-runtime.js";

/**
 * Keys of the per-message shape caches. A key is rebuilt on every assemble from the
 * settings it depends on; handing back the one string already in use (rather than an
 * equal new one) lets every cache lookup of the call compare by identity instead of
 * comparing a long key character by character, once per message.
 */
const MAX_KEYS = 1_024;

/** The canonical key for `parts` (root, agent, the settings a shape depends on), interned in the runtime. */
export function shapeCacheKey(rt: LedgerRuntime, ...parts: unknown[]): string {
  const interned = rt.owned("shape-cache-keys", () => new LRUCache<string, string>({ max: MAX_KEYS }));
  const key = JSON.stringify(parts);
  const known = interned.get(key);
  if (known !== undefined) return known;
  interned.set(key, key);
  return key;
}
