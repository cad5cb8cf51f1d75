/**
 * Byte-pair merging in O(m log m) for a piece of m bytes.
 *
 * js-tiktoken's merge loop rescans every adjacent pair after each merge and
 * builds a `"1,2,3"` key per pair: O(m²) string work, so a 50,000-char run of
 * one letter (one pre-token) took 157 s. This is the same algorithm (always
 * merge the lowest-ranked adjacent pair, the leftmost on a tie) driven by a
 * binary min-heap of candidate pairs over a linked list of parts, so its
 * result, and therefore the count, is identical.
 *
 * A pair's rank is looked up by the ranks of its two parts in a bounded
 * numeric cache before falling back to the byte-string lookup: long runs and
 * repetitive data meet the same few pairs again and again. Pieces of 512+
 * bytes use a rank-bucketed queue (`tokenizer-queue.ts`) with the same pop
 * order, which is ~3x faster than the binary heap on a 1 MB run.
 */

import { MinHeap } from "./min-heap.js";
import { RankBucketQueue } from "./tokenizer-queue.js";

/** Heap keys pack (rank, position) into one double: rank * 2^32 + position. */
const POSITION_RADIX = 4_294_967_296;
const NO_RANK = -1;
/** Pieces at least this long merge through {@link RankBucketQueue}. */
const LONG_PIECE_BYTES = 512;
/** Slots of the direct-mapped pair cache (a collision simply overwrites). */
const PAIR_CACHE_SLOTS = 1 << 16;

// Scratch arrays reused by every merge (synchronous, so never shared by two at once): grown, never freed.
let capacity = 0;
let nextPart = new Int32Array(0);
let prevPart = new Int32Array(0);
let partRank = new Int32Array(0);
let pairRank = new Int32Array(0);
const heap = new MinHeap();

function ensureCapacity(m: number): void {
  if (m <= capacity) return;
  capacity = Math.max(m, capacity * 2, 1024);
  nextPart = new Int32Array(capacity);
  prevPart = new Int32Array(capacity);
  partRank = new Int32Array(capacity);
  pairRank = new Int32Array(capacity);
  // Each merge pops one entry and pushes at most two: the heap holds < 2m.
  heap.reserve(2 * capacity);
}

/** Counts the BPE tokens of one pre-token given as a binary string (one char per byte). */
export type BpeCounter = (bytes: string) => number;

/**
 * A counter over one BPE table.
 * @param ranks Token bytes to rank; must contain every single byte and rank < 2^21.
 * @param maxTokenBytes Length of the longest token (longer pairs are skipped).
 * @param longPieceBytes Pieces this long or longer use the bucket queue (tests lower it). @default 512
 */
export function createBpeCounter(
  ranks: ReadonlyMap<string, number>,
  maxTokenBytes: number,
  longPieceBytes = LONG_PIECE_BYTES,
): BpeCounter {
  const buckets = new RankBucketQueue();
  const byteRank = new Int32Array(256);
  for (let b = 0; b < 256; b++) byteRank[b] = ranks.get(String.fromCharCode(b)) ?? NO_RANK;
  const cacheLeft = new Int32Array(PAIR_CACHE_SLOTS).fill(NO_RANK);
  const cacheRight = new Int32Array(PAIR_CACHE_SLOTS);
  const cacheRank = new Int32Array(PAIR_CACHE_SLOTS);
  let bytes = "";
  // Rank of the token made of parts `left` and `right` (ending at `end`), or NO_RANK.
  const lookupPair = (left: number, right: number, end: number): number => {
    const lr = partRank[left]!;
    const rr = partRank[right]!;
    const slot = (Math.imul(lr, 0x9e3779b1) ^ rr) & (PAIR_CACHE_SLOTS - 1);
    if (cacheLeft[slot] === lr && cacheRight[slot] === rr) return cacheRank[slot]!;
    const rank = ranks.get(bytes.substring(left, end)) ?? NO_RANK;
    cacheLeft[slot] = lr;
    cacheRight[slot] = rr;
    cacheRank[slot] = rank;
    return rank;
  };

  // Scratch arrays are module-level: counting is synchronous and never re-entrant.
  return function countBpe(piece: string): number {
    bytes = piece;
    const m = bytes.length;
    if (m <= 1) return m;
    if (ranks.has(bytes)) return 1;
    ensureCapacity(m);
    heap.clear();
    const long = m >= longPieceBytes;
    if (long) buckets.clear();

    for (let i = 0; i < m; i++) {
      nextPart[i] = i + 1;
      prevPart[i] = i - 1;
      partRank[i] = byteRank[bytes.charCodeAt(i) & 0xff]!;
    }
    for (let start = 0; start < m; start++) {
      let rank = NO_RANK;
      if (start + 1 < m) rank = lookupPair(start, start + 1, start + 2);
      pairRank[start] = rank;
      if (rank === NO_RANK) continue;
      if (long) buckets.push(rank, start);
      else heap.push(rank * POSITION_RADIX + start);
    }

    let parts = m;
    for (;;) {
      let key: number;
      if (long) {
        key = buckets.pop();
        if (key < 0) break;
      } else {
        if (heap.size === 0) break;
        key = heap.pop();
      }
      const start = key % POSITION_RADIX;
      const rank = (key - start) / POSITION_RADIX;
      // Stale entry: the pair at `start` grew (a different token, so a
      // different rank) or `start` was absorbed by its left neighbour.
      if (pairRank[start] !== rank) continue;
      const absorbed = nextPart[start]!;
      const after = nextPart[absorbed]!;
      nextPart[start] = after;
      if (after < m) prevPart[after] = start;
      pairRank[absorbed] = NO_RANK;
      partRank[start] = rank;
      parts--;
      const before = prevPart[start]!;
      for (let side = 0; side < 2; side++) {
        const left = side === 0 ? start : before;
        if (left < 0) continue;
        const right = nextPart[left]!;
        let pr = NO_RANK;
        if (right < m) {
          const end = nextPart[right]!;
          if (end - left <= maxTokenBytes) pr = lookupPair(left, right, end);
        }
        pairRank[left] = pr;
        if (pr === NO_RANK) continue;
        if (long) buckets.push(pr, left);
        else heap.push(pr * POSITION_RADIX + left);
      }
    }
    return parts;
  };
}
