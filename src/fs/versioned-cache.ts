import { LRUCache } from "lru-cache";

/**
 * What was read from a file, kept while the file's mtime stays the same. For files read
 * on a hot path whose writers replace them (atomic rename): one read per version. Bounded:
 * the least recently used file is forgotten first. A read that gave nothing (undefined) is not kept, so
 * the next call looks again.
 */
export type VersionedCache<T> = (
  file: string,
  mtimeMs: number,
  read: () => Promise<T | undefined>,
) => Promise<T | undefined>;

/** A {@link VersionedCache} of at most `maxFiles` files. */
export function createVersionedCache<T>(maxFiles: number): VersionedCache<T> {
  const entries = new LRUCache<string, { mtimeMs: number; value: T }>({ max: maxFiles });
  return async (file, mtimeMs, read) => {
    const known = entries.get(file);
    if (known && known.mtimeMs === mtimeMs) return known.value;
    const value = await read();
    if (value === undefined) return undefined;
    entries.set(file, { mtimeMs, value });
    return value;
  };
}
