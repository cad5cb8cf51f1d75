/**
 * Priority queue of (rank, position) pairs for merging long pieces: one
 * bucket per distinct rank, each bucket an append-only sorted run of
 * positions plus a small heap for the rare out-of-order insert, and a
 * binary heap over the distinct ranks. Long pieces (runs, base64, repeated
 * structure) hold few distinct ranks and insert positions mostly in order,
 * so most operations are O(1) instead of a sift through a heap of millions.
 * Pops in exactly the order of a binary heap keyed rank * 2^32 + position.
 */

interface Bucket {
  sorted: number[];
  head: number;
  aux: number[];
  queued: boolean;
}

/** Min-queue of (rank, position); see the file comment. */
export class RankBucketQueue {
  #buckets = new Map<number, Bucket>();
  #ranks: number[] = [];

  /** Empties the queue (buckets are dropped so memory does not outlive a piece). */
  clear(): void {
    this.#buckets = new Map();
    this.#ranks = [];
  }

  /** Adds (rank, position). */
  push(rank: number, pos: number): void {
    let bucket = this.#buckets.get(rank);
    if (!bucket) {
      bucket = { sorted: [], head: 0, aux: [], queued: false };
      this.#buckets.set(rank, bucket);
    }
    const sorted = bucket.sorted;
    if (sorted.length === bucket.head || pos > sorted[sorted.length - 1]!) sorted.push(pos);
    else heapPush(bucket.aux, pos);
    if (!bucket.queued) {
      bucket.queued = true;
      heapPush(this.#ranks, rank);
    }
  }

  /** Removes and returns the smallest (rank, position) as rank * 2^32 + position, or -1 when empty. */
  pop(): number {
    const ranks = this.#ranks;
    if (ranks.length === 0) return -1;
    const rank = ranks[0]!;
    const bucket = this.#buckets.get(rank)!;
    const { sorted, aux } = bucket;
    let pos: number;
    if (aux.length > 0 && (bucket.head === sorted.length || aux[0]! < sorted[bucket.head]!)) pos = heapPop(aux);
    else pos = sorted[bucket.head++]!;
    if (bucket.head === sorted.length && aux.length === 0) {
      bucket.sorted = [];
      bucket.head = 0;
      bucket.queued = false;
      heapPop(ranks);
    } else if (bucket.head > 4096 && bucket.head * 2 > sorted.length) {
      bucket.sorted = sorted.slice(bucket.head);
      bucket.head = 0;
    }
    return rank * 4_294_967_296 + pos;
  }
}

function heapPush(heap: number[], value: number): void {
  let i = heap.length;
  heap.push(value);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const pv = heap[parent]!;
    if (pv <= value) break;
    heap[i] = pv;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): number {
  const top = heap[0]!;
  const last = heap.pop()!;
  const n = heap.length;
  if (n === 0) return top;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && heap[r]! < heap[l]! ? r : l;
    if (heap[c]! >= last) break;
    heap[i] = heap[c]!;
    i = c;
  }
  heap[i] = last;
  return top;
}
