import { afterEach, describe, expect, it, vi } from "vitest";
import { sqliteDatabaseClass } from "./sqlite.js";

describe("sqliteDatabaseClass", () => {
  afterEach(() => vi.restoreAllMocks());

  it("gives Node's DatabaseSync where node:sqlite exists", () => {
    expect(sqliteDatabaseClass().name).toBe("DatabaseSync");
  });

  it("without node:sqlite (Node 20) names the Node version a SQLite read needs", () => {
    vi.spyOn(process, "getBuiltinModule").mockReturnValue(undefined);
    expect(() => sqliteDatabaseClass()).toThrow(
      expect.objectContaining({
        code: "node_unsupported",
        message: expect.stringContaining(`Expected Node 22.5 or later (24, as openclaw itself needs)`) as string,
      }),
    );
  });
});
