import { describe, expect, it } from "vitest";
import { HANDLE_PREFIX } from "../artifacts/index.js";
import { isLedgerError } from "../errors.js";
import { ACCEPTED_FETCH_FORMS, fetchSelector, normalizeFetchHandle } from "./fetch-input.js";

const HEX = "ab".repeat(32);
const HANDLE = `${HANDLE_PREFIX}${HEX}`;

function errorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (err) {
    if (isLedgerError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error("expected an error");
}

describe("what ledger_fetch accepts", () => {
  it("takes the handle with or without the ledger: prefix", () => {
    for (const form of [HANDLE, `v1:sha256:${HEX}`, `sha256:${HEX}`, ` ${HANDLE} `, `\`${HANDLE}\``])
      expect(normalizeFetchHandle(form)).toBe(HANDLE);
    const bad = errorOf(() => normalizeFetchHandle("ledger:v1:md5:abc"));
    expect(bad.code).toBe("handle_invalid");
    expect(bad.message).toContain(ACCEPTED_FETCH_FORMS);
    expect(errorOf(() => normalizeFetchHandle(42)).message).toMatch(
      /^Expected `handle` to be a string, got `42` \(number\)\. Accepted:/,
    );
  });

  it('takes lines as "A-B", "A" or a number, and the selector object or its JSON', () => {
    expect(fetchSelector({ lines: "1200-1210" })).toEqual({ kind: "range", start: 1200, end: 1210 });
    expect(fetchSelector({ lines: "1200 - 1210" })).toEqual({ kind: "range", start: 1200, end: 1210 });
    expect(fetchSelector({ lines: "7" })).toEqual({ kind: "range", start: 7, end: 7 });
    expect(fetchSelector({ lines: 7 })).toEqual({ kind: "range", start: 7, end: 7 });
    expect(fetchSelector({ selector: { kind: "range", start: 1200, end: 1210 } })).toEqual({
      kind: "range",
      start: 1200,
      end: 1210,
    });
    expect(fetchSelector({ selector: '{"kind":"grep","pattern":"error"}' })).toMatchObject({
      kind: "grep",
      pattern: "error",
    });
    expect(fetchSelector({})).toEqual({ kind: "headtail" });
  });

  it("refuses anything else with an error naming the accepted forms", () => {
    for (const [params, code] of [
      [{ lines: "lines 1200 to the end" }, "input_invalid"],
      [{ lines: "1210-1200" }, "selector_invalid"],
      [{ lines: "1-2", selector: { kind: "head" } }, "input_invalid"],
      [{ selector: { kind: "bogus" } }, "selector_invalid"],
      [{ selector: "{not json" }, "selector_invalid"],
    ] as const) {
      const e = errorOf(() => fetchSelector(params as Record<string, unknown>));
      expect(e.code, JSON.stringify(params)).toBe(code);
      expect(e.message).toContain('"lines":"1200-1210"');
    }
  });
});
