import { describe, expect, it } from "vitest";
import { TextCache } from "./decoded-text-lru.js";

describe("TextCache", () => {
  it("drops the least recently used text once over its byte budget", () => {
    const cache = new TextCache(40); // 20 UTF-16 code units
    cache.set("a", "aaaaaaaa");
    cache.set("b", "bbbbbbbb");
    expect(cache.get("a")).toBe("aaaaaaaa"); // now the most recent
    cache.set("c", "cccccccc");
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual(["aaaaaaaa", undefined, "cccccccc"]);
  });

  it("never keeps a text bigger than half the budget, nor anything at budget 0", () => {
    const cache = new TextCache(40);
    cache.set("big", "x".repeat(11));
    expect(cache.get("big")).toBeUndefined();
    const none = new TextCache(0);
    none.set("a", "a");
    expect(none.get("a")).toBeUndefined();
  });

  it("forgets a deleted key and its size", () => {
    const cache = new TextCache(40);
    cache.set("a", "a".repeat(10));
    cache.delete("a");
    cache.set("b", "b".repeat(10));
    cache.set("c", "c".repeat(10));
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, "b".repeat(10), "c".repeat(10)]);
  });
});
