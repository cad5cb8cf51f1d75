import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { joinByteLines, splitByteLines } from "./byte-lines.js";

describe("byte lines", () => {
  it("split then join gives back every byte, final newline and empty lines included", () => {
    const bytes = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a.map((b) => (b % 4 === 0 ? 10 : b))));
    fc.assert(
      fc.property(bytes, (raw) => {
        const lines = splitByteLines(raw);
        expect(joinByteLines(lines).equals(raw)).toBe(true);
        expect(lines.every((l) => !l.includes(10))).toBe(true);
        expect(lines.length).toBe(raw.filter((b) => b === 10).length + 1);
      }),
    );
  });

  it("keeps a final newline as an empty last line", () => {
    expect(splitByteLines(Buffer.from("a\n\nb\n")).map(String)).toEqual(["a", "", "b", ""]);
    expect(splitByteLines(Buffer.alloc(0)).map(String)).toEqual([""]);
  });
});
