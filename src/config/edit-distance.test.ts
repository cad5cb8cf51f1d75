import { describe, expect, it } from "vitest";
import { editDistance } from "./edit-distance.js";

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["", "abc", 3],
    ["abc", "", 3],
    ["status", "status", 0],
    ["stauts", "status", 2],
    ["maxchars", "maxChars", 1],
    ["offlaod", "offload", 2],
    ["gc", "grep", 3],
    ["kitten", "sitting", 3],
  ])("%j to %j: %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it("is symmetric and counts one edit per inserted, deleted or replaced character", () => {
    expect(editDistance("flaw", "lawn")).toBe(editDistance("lawn", "flaw"));
    expect(editDistance("fetch", "fetchs")).toBe(1);
    expect(editDistance("fetch", "fech")).toBe(1);
    expect(editDistance("fetch", "fatch")).toBe(1);
  });
});
