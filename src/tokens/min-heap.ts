/**
 * A binary min-heap of numbers over a growable `Float64Array`: the one heap the BPE merge uses, for the candidate pairs
 * of a short piece and for the ranks and out-of-order positions of the long pieces' bucket queue. Keys are numbers so
 * that a (rank, position) pair packs into one (rank * 2^32 + position) and compares in one step.
 */
export class MinHeap {
  #keys: Float64Array;
  #size = 0;

  /** @param capacity Keys held before the first growth. @default 0 */
  constructor(capacity = 0) {
    this.#keys = new Float64Array(capacity);
  }

  /** Keys held. */
  get size(): number {
    return this.#size;
  }

  /** The smallest key (undefined when empty), left in place. */
  peek(): number | undefined {
    return this.#size > 0 ? this.#keys[0] : undefined;
  }

  /** Makes room for `capacity` keys at once, so pushes up to it never grow the storage. */
  reserve(capacity: number): void {
    if (capacity <= this.#keys.length) return;
    const keys = new Float64Array(capacity);
    keys.set(this.#keys.subarray(0, this.#size));
    this.#keys = keys;
  }

  /** Drops every key (the storage is kept). */
  clear(): void {
    this.#size = 0;
  }

  /** Adds `key`. */
  push(key: number): void {
    if (this.#size === this.#keys.length) this.reserve(Math.max(16, this.#size * 2));
    const keys = this.#keys;
    let i = this.#size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent]!;
      if (pk <= key) break;
      keys[i] = pk;
      i = parent;
    }
    keys[i] = key;
  }

  /** Removes and returns the smallest key; the heap must not be empty. */
  pop(): number {
    const keys = this.#keys;
    const top = keys[0]!;
    const n = --this.#size;
    const last = keys[n]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && keys[r]! < keys[l]! ? r : l;
      if (keys[c]! >= last) break;
      keys[i] = keys[c]!;
      i = c;
    }
    keys[i] = last;
    return top;
  }
}
