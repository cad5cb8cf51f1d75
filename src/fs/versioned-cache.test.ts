import { describe, expect, it } from "vitest";
import { createVersionedCache } from "./versioned-cache.js";

describe("versioned file cache", () => {
  it("reads a file once per mtime, again when it changes, never keeps a failed read, and forgets the oldest file first", async () => {
    const cache = createVersionedCache<string>(2);
    const reads: string[] = [];
    const read = (file: string, value: string | undefined) => () => {
      reads.push(file);
      return Promise.resolve(value);
    };
    expect(await cache("a", 1, read("a", "a1"))).toBe("a1");
    expect(await cache("a", 1, read("a", "other"))).toBe("a1");
    expect(await cache("a", 2, read("a", "a2"))).toBe("a2");
    expect(await cache("b", 1, read("b", undefined))).toBeUndefined();
    expect(await cache("b", 1, read("b", "b1"))).toBe("b1");
    expect(await cache("c", 1, read("c", "c1"))).toBe("c1");
    // Two files at most: "a" was the oldest and is read again.
    expect(await cache("a", 2, read("a", "a2 again"))).toBe("a2 again");
    expect(reads).toEqual(["a", "a", "b", "b", "c", "a"]);
  });
});
