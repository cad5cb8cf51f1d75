import type { ChunkLayout } from "../format/blob-reader.js";
import type { ChunkEntry } from "../format/chunk-index.js";
import type { TextCache } from "./decoded-text-lru.js";
import type { TextView } from "../selectors/positional-text.js";

/** Decoded chunks kept by one view (a selector looks at one or two places). */
const KEEP_CHUNKS = 4;

interface Decoded {
  text: string;
  /** Offsets of the chunk's newlines in `text`, made on first need. */
  newlines?: Int32Array;
}

/**
 * A {@link TextView} over a chunked blob: a chunk is read, checked against
 * its index entry and decoded only when a selector looks inside it; line and
 * length questions are answered from the index where it can. Reads are
 * synchronous (selectors are); a view lives for one selection.
 */
export class ChunkedText implements TextView {
  readonly length: number;
  readonly totalLines: number;
  readonly #layout: ChunkLayout;
  readonly #readChunk: (k: number) => Buffer;
  readonly #shared: TextCache | undefined;
  readonly #cache = new Map<number, Decoded>();
  /** Chunks read and decoded so far (a chunk dropped from the cache and needed again counts twice). */
  chunksRead = 0;

  /**
   * @param readChunk Chunk `k`'s content, checked against its index entry (synchronous: selectors are).
   * @param options `cache` keeps decoded chunks between views.
   */
  constructor(layout: ChunkLayout, readChunk: (k: number) => Buffer, options: { cache?: TextCache } = {}) {
    this.#layout = layout;
    this.#readChunk = readChunk;
    this.#shared = options.cache;
    this.length = layout.chars;
    this.totalLines = layout.rawBytes === 0 ? 0 : layout.endsWithNewline ? layout.newlines : layout.newlines + 1;
  }

  charAt(index: number): string {
    if (index < 0 || index >= this.length) return "";
    const k = this.#chunkAt(index);
    return this.#decoded(k).text.charAt(index - this.#start(k));
  }

  indexOf(_search: "\n", from = 0): number {
    const pos = Math.max(0, from);
    if (pos >= this.length) return -1;
    for (let k = this.#chunkAt(pos); k < this.#count(); k++) {
      if (this.#entry(k).newlines === 0) continue;
      const start = this.#start(k);
      const i = this.#decoded(k).text.indexOf("\n", Math.max(0, pos - start));
      if (i >= 0) return start + i;
    }
    return -1;
  }

  lastIndexOf(_search: "\n", from = Infinity): number {
    if (this.length === 0) return -1;
    const pos = Math.min(this.length - 1, Math.max(0, from));
    for (let k = this.#chunkAt(pos); k >= 0; k--) {
      if (this.#entry(k).newlines === 0) continue;
      const start = this.#start(k);
      const i = this.#decoded(k).text.lastIndexOf("\n", pos - start);
      if (i >= 0) return start + i;
    }
    return -1;
  }

  slice(start: number, end?: number): string {
    const a = clamp(start, this.length);
    const b = end === undefined ? this.length : clamp(end, this.length);
    if (b <= a) return "";
    const parts: string[] = [];
    for (let k = this.#chunkAt(a); k < this.#count() && this.#start(k) < b; k++) {
      const s = this.#start(k);
      parts.push(this.#decoded(k).text.slice(Math.max(0, a - s), b - s));
    }
    return parts.join("");
  }

  lineStart(line: number): number {
    const m = line - 1;
    if (m <= 0) return 0;
    if (m > this.#layout.newlines) return this.length;
    // The chunk holding newline number m (1-based): the last chunk with fewer than m newlines before it.
    const k = upperBound(this.#layout.newlinesBefore, m - 1, this.#count()) - 1;
    const positions = this.#newlines(k);
    return this.#start(k) + (positions[m - 1 - (this.#layout.newlinesBefore[k] as number)] as number) + 1;
  }

  lineAt(offset: number): number {
    if (offset <= 0) return 1;
    const pos = Math.min(offset, this.length) - 1;
    const k = this.#chunkAt(pos);
    const local = pos - this.#start(k);
    const positions = this.#newlines(k);
    return (this.#layout.newlinesBefore[k] as number) + upperBound(positions, local, positions.length) + 1;
  }

  #count(): number {
    return this.#layout.entries.length;
  }

  #entry(k: number): ChunkEntry {
    return this.#layout.entries[k] as ChunkEntry;
  }

  #start(k: number): number {
    return this.#layout.charStart[k] as number;
  }

  #chunkAt(pos: number): number {
    return Math.max(0, upperBound(this.#layout.charStart, pos, this.#count()) - 1);
  }

  #decoded(k: number): Decoded {
    const hit = this.#cache.get(k);
    if (hit) {
      this.#cache.delete(k);
      this.#cache.set(k, hit);
      return hit;
    }
    // A chunk's digest names its text, whatever blob or layout it came from.
    const key = `chunk:${this.#entry(k).sha256.toString("hex")}`;
    let text = this.#shared?.get(key);
    if (text === undefined) {
      text = this.#readChunk(k).toString("utf8");
      this.chunksRead++;
      this.#shared?.set(key, text);
    }
    const decoded: Decoded = { text };
    this.#cache.set(k, decoded);
    for (const key of this.#cache.keys()) {
      if (this.#cache.size <= KEEP_CHUNKS) break;
      this.#cache.delete(key);
    }
    return decoded;
  }

  #newlines(k: number): Int32Array {
    const d = this.#decoded(k);
    if (!d.newlines) {
      const positions = new Int32Array(this.#entry(k).newlines);
      let n = 0;
      for (let i = d.text.indexOf("\n"); i >= 0 && n < positions.length; i = d.text.indexOf("\n", i + 1))
        positions[n++] = i;
      d.newlines = positions;
    }
    return d.newlines;
  }
}

/** Index of the first element of `sorted[0, n)` greater than `value`. */
function upperBound(sorted: ArrayLike<number>, value: number, n: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function clamp(index: number, length: number): number {
  return index < 0 ? Math.max(0, length + index) : Math.min(index, length);
}
