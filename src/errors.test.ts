import { describe, expect, it } from "vitest";
import { isNotFound } from "./errors.js";

describe("isNotFound", () => {
  it("is true for a missing file or a parent that is not a folder, false for other failures and non-errors", () => {
    const withCode = (code: string) => Object.assign(new Error(code), { code });
    expect(["ENOENT", "ENOTDIR", "EACCES", "EISDIR"].map((code) => isNotFound(withCode(code)))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([undefined, null, "ENOENT", 2].map(isNotFound)).toEqual([false, false, false, false]);
  });
});
