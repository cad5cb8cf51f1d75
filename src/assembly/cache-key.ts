/**
 * Keys of the per-message shape caches. A key is rebuilt on every assemble from the
 * settings it depends on; handing back the one string already in use (rather than an
 * equal new one) lets every cache lookup of the call compare by identity instead of
 * comparing a long key character by character, once per message.
 */
const interned = new Map<string, string>();
const MAX_KEYS = 1_024;

/** The canonical key for `parts` (root, agent, the settings a shape depends on). */
export function shapeCacheKey(...parts: unknown[]): string {
  const key = JSON.stringify(parts);
  const known = interned.get(key);
  if (known !== undefined) return known;
  if (interned.size >= MAX_KEYS) interned.clear();
  interned.set(key, key);
  return key;
}
