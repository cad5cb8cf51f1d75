/**
 * Priority queue of (rank, position) pairs for merging long pieces: one
 * bucket per distinct rank, each bucket an append-only sorted run of
 * positions plus a small heap for the rare out-of-order insert, and a
 * binary heap over the distinct ranks. Long pieces (runs, base64, repeated
 * structure) hold few distinct ranks and insert positions mostly in order,
 * so most operations are O(1) instead of a sift through a heap of millions.
 * Pops in exactly the order of a binary heap keyed rank * 2^32 + position.
 */

import { MinHeap } from "./min-heap.js";

interface Bucket {
  sorted: number[];
  head: number;
  aux: MinHeap;
  queued: boolean;
}

/** Min-queue of (rank, position); see the file comment. */
export class RankBucketQueue {
  #buckets = new Map<number, Bucket>();
  #ranks = new MinHeap();

  /** Empties the queue (buckets are dropped so memory does not outlive a piece). */
  clear(): void {
    this.#buckets = new Map();
    this.#ranks = new MinHeap();
  }

  /** Adds (rank, position). */
  push(rank: number, pos: number): void {
    let bucket = this.#buckets.get(rank);
    if (!bucket) {
      bucket = { sorted: [], head: 0, aux: new MinHeap(), queued: false };
      this.#buckets.set(rank, bucket);
    }
    const sorted = bucket.sorted;
    if (sorted.length === bucket.head || pos > sorted[sorted.length - 1]!) sorted.push(pos);
    else bucket.aux.push(pos);
    if (!bucket.queued) {
      bucket.queued = true;
      this.#ranks.push(rank);
    }
  }

  /** Removes and returns the smallest (rank, position) as rank * 2^32 + position, or -1 when empty. */
  pop(): number {
    const ranks = this.#ranks;
    const rank = ranks.peek();
    if (rank === undefined) return -1;
    const bucket = this.#buckets.get(rank)!;
    const { sorted, aux } = bucket;
    let pos: number;
    const auxMin = aux.peek();
    if (auxMin !== undefined && (bucket.head === sorted.length || auxMin < sorted[bucket.head]!)) pos = aux.pop();
    else pos = sorted[bucket.head++]!;
    if (bucket.head === sorted.length && aux.size === 0) {
      bucket.sorted = [];
      bucket.head = 0;
      bucket.queued = false;
      ranks.pop();
    } else if (bucket.head > 4096 && bucket.head * 2 > sorted.length) {
      bucket.sorted = sorted.slice(bucket.head);
      bucket.head = 0;
    }
    return rank * 4_294_967_296 + pos;
  }
}
