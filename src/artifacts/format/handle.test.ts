import { describe, expect, it } from "vitest";
import { isLedgerError } from "../../errors.js";
import {
  findHandles,
  firstHandle,
  formatHandle,
  handleForBytes,
  handlePattern,
  HANDLE_PREFIX,
  isHandle,
  parseHandle,
} from "./handle.js";

const HEX = "a".repeat(32) + "0123456789abcdef".repeat(2);
const GOOD = HANDLE_PREFIX + HEX;

function failure(input: unknown): string {
  try {
    parseHandle(input);
  } catch (err) {
    if (isLedgerError(err, "handle_invalid")) return err.message;
    throw err;
  }
  throw new Error(`accepted ${String(input)}`);
}

describe("parseHandle", () => {
  it("returns the digest of a valid handle", () => {
    expect(parseHandle(GOOD)).toBe(HEX);
    expect(isHandle(GOOD)).toBe(true);
  });

  it.each([
    [
      "uppercase hex",
      GOOD.toUpperCase().replace("LEDGER:V1:SHA256:", HANDLE_PREFIX),
      /uppercase hex digit `A` at digit 1/,
    ],
    ["short", GOOD.slice(0, -1), /exactly 64 hex digits .* got 63 characters/],
    ["long", `${GOOD}0`, /got 65 characters/],
    ["non-ASCII", `${GOOD.slice(0, -1)}é`, /ASCII-only .* index 80/],
    ["leading space", ` ${GOOD}`, /without whitespace, got whitespace at index 0/],
    ["trailing newline", `${GOOD}\n`, /whitespace at index 81/],
    ["prefix missing", HEX, /starting with `ledger:v1:sha256:`/],
    ["surrounding text", `see ${GOOD}`.replace(" ", "_"), /4 leading characters/],
    ["wrong version", GOOD.replace("v1", "v2"), /starting with/],
    ["non-hex", `${GOOD.slice(0, -1)}g`, /non-hex character `g` at digit 64/],
    ["empty", "", /starting with/],
  ])("refuses %s", (_name, input, message) => {
    expect(failure(input)).toMatch(message);
    expect(isHandle(input)).toBe(false);
  });

  it.each([[undefined], [null], [42], [{ handle: GOOD }]])("refuses the non-string %j", (input) => {
    expect(failure(input)).toMatch(/Expected a handle string/);
  });
});

describe("handleForBytes / formatHandle", () => {
  it("hashes strings as UTF-8 and bytes as given", () => {
    // sha256("abc")
    const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    expect(handleForBytes("abc")).toBe(HANDLE_PREFIX + abc);
    expect(handleForBytes(new Uint8Array([0x61, 0x62, 0x63]))).toBe(HANDLE_PREFIX + abc);
    expect(formatHandle(abc)).toBe(HANDLE_PREFIX + abc);
    expect(() => formatHandle("../etc")).toThrow(/64 lowercase hex/);
  });
});

describe("findHandles / firstHandle", () => {
  const a = handleForBytes("a");
  const b = handleForBytes("b");

  it("finds every distinct handle cited in a text, in order of first appearance", () => {
    const text = `stub ${b} then ${a}, again ${b}; not a handle: ${HANDLE_PREFIX}${"A".repeat(64)}`;
    expect(findHandles(text)).toEqual([b, a]);
    expect(firstHandle(text)).toBe(b);
    expect(findHandles("no handle here")).toEqual([]);
    expect(firstHandle("no handle here")).toBeUndefined();
  });

  it("gives a fresh pattern each call, so no lastIndex leaks between texts", () => {
    const first = handlePattern();
    expect(first.exec(`${a}`)?.[0]).toBe(a);
    expect(handlePattern().exec(`${a}`)?.[0]).toBe(a);
    expect(`x ${a} y`.replace(handlePattern(), "H")).toBe("x H y");
  });
});
