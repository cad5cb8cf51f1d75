import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadBpeTable } from "./encoder.js";
import { createBpeCounter } from "./tokenizer-bpe.js";
import { MinHeap } from "./min-heap.js";
import { RankBucketQueue } from "./tokenizer-queue.js";

const RADIX = 4_294_967_296;

describe("MinHeap", () => {
  it("pops its keys in ascending order under interleaved pushes and pops, growing as it goes", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.double({ min: 0, max: 2 ** 52, noNaN: true }), fc.constant(null))), (ops) => {
        const heap = new MinHeap();
        const model: number[] = [];
        for (const op of ops) {
          if (op === null) {
            model.sort((a, b) => a - b);
            if (model.length > 0) expect(heap.pop()).toBe(model.shift());
            else expect(heap.peek()).toBeUndefined();
          } else {
            heap.push(op);
            model.push(op);
          }
          expect(heap.size).toBe(model.length);
        }
        model.sort((a, b) => a - b);
        for (const key of model) expect(heap.pop()).toBe(key);
        expect(heap.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe("RankBucketQueue", () => {
  it("pops (rank, position) in ascending order under interleaved pushes and pops", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 5000 })), fc.constant(null)),
          { maxLength: 400 },
        ),
        (ops) => {
          const queue = new RankBucketQueue();
          const model: number[] = [];
          for (const op of ops) {
            if (op === null) {
              model.sort((a, b) => a - b);
              expect(queue.pop()).toBe(model.length > 0 ? model.shift() : -1);
            } else {
              queue.push(op[0], op[1]);
              model.push(op[0] * RADIX + op[1]);
            }
          }
          model.sort((a, b) => a - b);
          for (const key of model) expect(queue.pop()).toBe(key);
          expect(queue.pop()).toBe(-1);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("createBpeCounter", () => {
  const { ranks, maxTokenBytes } = loadBpeTable("o200k_base");
  const heapOnly = createBpeCounter(ranks, maxTokenBytes, Number.POSITIVE_INFINITY);
  const bucketsOnly = createBpeCounter(ranks, maxTokenBytes, 2);
  const binary = (bytes: Uint8Array): string => Buffer.from(bytes).toString("latin1");

  it("gives the same count through the heap and the bucket queue", () => {
    const pieces = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map(binary),
      fc.string({ unit: fc.constantFrom("a", "b", "x", " ", "=", "\xc3", "\xa9"), maxLength: 600 }),
      fc
        .tuple(fc.constantFrom("x", " ", "ab", "\xe6\x97\xa5"), fc.integer({ min: 1, max: 2000 }))
        .map(([s, n]) => s.repeat(n)),
    );
    fc.assert(
      fc.property(pieces, (piece) => {
        expect(bucketsOnly(piece)).toBe(heapOnly(piece));
      }),
      { numRuns: 500 },
    );
  });

  it("counts single bytes and whole tokens as one", () => {
    expect(heapOnly("")).toBe(0);
    expect(heapOnly("\x00")).toBe(1);
    expect(heapOnly("hello")).toBe(1);
    expect(bucketsOnly("x".repeat(80))).toBe(10);
  });
});
