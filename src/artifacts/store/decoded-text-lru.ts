/**
 * Verified, decoded text kept in memory, least recently used first out,
 * bounded by its size (2 bytes per UTF-16 code unit). Entries are content
 * checked against a digest before they are put here, so a hit needs no disk,
 * gunzip or hash; keys are digests (a whole artifact's, or `chunk:` and a
 * chunk's), so an entry never goes stale.
 */
export class TextCache {
  readonly #entries = new Map<string, string>();
  readonly #maxBytes: number;
  #bytes = 0;

  /** @param maxBytes Budget in bytes; 0 keeps nothing. */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The text under `key`, now the most recently used. */
  get(key: string): string | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, hit);
    return hit;
  }

  /** Keeps `text` unless it would take more than half the budget (one entry never empties the cache). */
  set(key: string, text: string): void {
    if (text.length * 2 > this.#maxBytes / 2 || this.#entries.has(key)) return;
    this.#entries.set(key, text);
    this.#bytes += text.length * 2;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= v.length * 2;
    }
  }

  /** Drops `key`. */
  delete(key: string): void {
    const hit = this.#entries.get(key);
    if (hit === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= hit.length * 2;
  }
}
