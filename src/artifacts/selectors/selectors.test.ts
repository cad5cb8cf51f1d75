import { describe, expect, it } from "vitest";
import { isLedgerError } from "../../errors.js";
import { compileSafeRegex } from "../../safe-regex.js";
import { parseSelector, selectSlice, type Selector } from "./selectors.js";

const LINES = Array.from({ length: 2104 }, (_, i) => `line ${i + 1}${i % 100 === 41 ? " ERROR boom" : ""}`);
const TEXT = `${LINES.join("\n")}\n`;
const TOTAL = TEXT.length.toLocaleString("en-US");

function errCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isLedgerError(err)) return err.code;
    throw err;
  }
  return "ok";
}

const sel = (s: unknown): Selector => parseSelector(s);

describe("selectSlice", () => {
  it("head shows whole lines up to maxChars and says what it left out", () => {
    const r = selectSlice(TEXT, sel({ kind: "head" }), { maxChars: 1000 });
    expect(r.text.length).toBeLessThanOrEqual(1000);
    expect(r.text.startsWith("line 1\nline 2\n")).toBe(true);
    const shown = r.text.split("\n").length;
    expect(r.notice).toMatch(new RegExp(`^lines 1-${shown} of 2,104 shown`));
    expect(r).toMatchObject({ truncated: true, totalLines: 2104, totalChars: TEXT.length });
  });

  it("head and tail with a line count", () => {
    expect(selectSlice(TEXT, sel({ kind: "head", lines: 3 }), { maxChars: 8000 })).toMatchObject({
      text: "line 1\nline 2\nline 3",
      notice: `lines 1-3 of 2,104 shown (21 of ${TOTAL} chars)`,
      truncated: false,
    });
    const t = selectSlice(TEXT, sel({ kind: "tail", lines: 2 }), { maxChars: 8000 });
    expect(t.text).toBe("line 2103\nline 2104");
    expect(t.notice).toBe(`lines 2,103-2,104 of 2,104 shown (20 of ${TOTAL} chars)`);
  });

  it("range is 1-based and inclusive, past-the-end says so", () => {
    expect(selectSlice(TEXT, sel({ kind: "range", start: 10, end: 12 }), { maxChars: 8000 }).text).toBe(
      "line 10\nline 11\nline 12",
    );
    expect(selectSlice(TEXT, sel({ kind: "range", start: 3000, end: 3001 }), { maxChars: 8000 }).notice).toMatch(
      /past the end \(2,104 lines\)/,
    );
    const capped = selectSlice(TEXT, sel({ kind: "range", start: 1, end: 2104 }), { maxChars: 100 });
    expect(capped.text.length).toBeLessThanOrEqual(100);
    expect(capped.truncated).toBe(true);
  });

  it("headtail keeps both ends and marks the omitted middle", () => {
    const r = selectSlice(TEXT, sel(undefined), { maxChars: 600 });
    expect(r.text.length).toBeLessThanOrEqual(600);
    expect(r.text.startsWith("line 1\n")).toBe(true);
    expect(r.text.endsWith("line 2104")).toBe(true);
    expect(r.text).toMatch(/\n… lines [\d,]+-[\d,]+ omitted \([\d,]+ chars\) …\n/);
    expect(r.notice).toMatch(/^lines 1-\d+ and lines [\d,]+-2,104 of 2,104 shown/);
    expect(selectSlice("short", sel("headtail"), { maxChars: 600 })).toMatchObject({ text: "short", truncated: false });
  });

  it("cuts a single huge line and says so", () => {
    const one = "x".repeat(50_000);
    const r = selectSlice(one, sel({ kind: "head" }), { maxChars: 100 });
    expect(r.text).toBe("x".repeat(100));
    expect(r.notice).toBe("line 1 of 1 (line 1 cut) shown (100 of 50,000 chars)");
  });

  it("enforces the hard cap of 20000 whatever maxChars says", () => {
    const big = "y".repeat(100_000);
    expect(selectSlice(big, sel("head"), { maxChars: 1_000_000 }).text.length).toBe(20_000);
    expect(selectSlice(big, sel("head"), { maxChars: 1_000_000, hardMaxChars: 500 }).text.length).toBe(500);
    expect(errCode(() => selectSlice(big, sel("head"), { maxChars: 0 }))).toBe("selector_invalid");
  });

  it("grep prints numbered matches with context and counts all matches", () => {
    const r = selectSlice(TEXT, sel({ kind: "grep", pattern: "error", flags: "i", context: 1 }), { maxChars: 8000 });
    expect(r.text.split("\n").slice(0, 4)).toEqual(["41-line 41", "42:line 42 ERROR boom", "43-line 43", "--"]);
    expect(r.notice).toBe("grep /error/i: 21 matching lines of 2,104, 21 shown");
    const capped = selectSlice(TEXT, sel({ kind: "grep", pattern: "ERROR" }), { maxChars: 60 });
    expect(capped.notice).toMatch(
      /^grep \/ERROR\/: 21 matching lines of 2,104, 2 shown; the rest left out to fit 60 chars$/,
    );
    expect(capped.truncated).toBe(true);
  });

  it("grep finds matches deep inside a very long line and shows a window around them", () => {
    const line = `${"a".repeat(30_000)}NEEDLE${"b".repeat(30_000)}`;
    const r = selectSlice(`first\n${line}\nlast`, sel({ kind: "grep", pattern: "NEEDLE" }), { maxChars: 8000 });
    expect(r.text).toMatch(/^2:\[…29,900 chars\] a+NEEDLEb+ \[\+[\d,]+ chars\]$/);
    expect(r.text.length).toBeLessThan(600);
  });

  it("json selects by a documented JSONPath subset", () => {
    const doc = JSON.stringify({
      items: [
        { name: "a", n: 1 },
        { name: "b", n: 2 },
      ],
      "odd key": { x: true },
    });
    expect(selectSlice(doc, sel({ kind: "json", path: "$.items[*].name" }), { maxChars: 8000 }).text).toBe(
      '[\n  "a",\n  "b"\n]',
    );
    expect(selectSlice(doc, sel({ kind: "json", path: "$.items[-1].n" }), { maxChars: 8000 })).toMatchObject({
      text: "2",
      notice: "$.items[-1].n: 1 value; 1 chars shown",
    });
    expect(selectSlice(doc, sel({ kind: "json", path: "$['odd key'].x" }), { maxChars: 8000 }).text).toBe("true");
    expect(selectSlice(doc, sel({ kind: "json", path: "$.nope" }), { maxChars: 8000 }).notice).toBe(
      "$.nope: no value (missing member `nope` at $)",
    );
    expect(errCode(() => selectSlice("not json", sel({ kind: "json", path: "$" }), { maxChars: 10 }))).toBe(
      "selector_invalid",
    );
    expect(errCode(() => sel({ kind: "json", path: "$..name" }))).toBe("selector_invalid");
    expect(errCode(() => sel({ kind: "json", path: "items" }))).toBe("selector_invalid");
    expect(errCode(() => selectSlice(doc, { kind: "json", path: "$[?(@.n)]" }, { maxChars: 10 }))).toBe(
      "selector_invalid",
    );
  });
});

describe("grep safety", () => {
  it.each([
    ["(a+)+$", /repeated group/],
    ["(a|aa)*b", /repeated group/],
    ["(\\w+\\s?)*x", /repeated group/],
    ["(x)\\1", /backreferences/],
    ["(?<q>x)\\k<q>", /backreferences/],
    ["a+b*c+d*e+", /at most 4 unbounded quantifiers/],
    ["(?:x{1,100})+", /repeated group/],
    ["a".repeat(201), /at most 200 characters/],
  ])("refuses %s with pattern_refused", (pattern, message) => {
    let caught: unknown;
    try {
      compileSafeRegex(pattern);
    } catch (err) {
      caught = err;
    }
    expect(isLedgerError(caught, "pattern_refused")).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });

  it.each([
    "error",
    "^\\s*at .*\\(",
    "(?:foo|bar) \\d+ms",
    "exit code [1-9]\\d*",
    "[A-Z]+_[A-Z]+=\\S+",
    "\\bwarn(ing)?\\b",
    ".*timeout.*",
    "\\w+\\s+\\d+",
    ".*a.*b.*c",
  ])("accepts the ordinary pattern %s", (pattern) => {
    expect(compileSafeRegex(pattern).regex).toBeInstanceOf(RegExp);
  });

  it("rejects syntax errors and bad flags as selector_invalid", () => {
    expect(errCode(() => compileSafeRegex("(unclosed"))).toBe("selector_invalid");
    expect(errCode(() => parseSelector({ kind: "grep", pattern: "x", flags: "g" }))).toBe("selector_invalid");
    expect(errCode(() => parseSelector({ kind: "grep", pattern: "x", context: 21 }))).toBe("selector_invalid");
  });

  it("stops a slow scan at the time limit and says so", () => {
    const text = Array.from({ length: 200_000 }, (_, i) => `row ${i} ${"z".repeat(40)}`).join("\n");
    const r = selectSlice(text, sel({ kind: "grep", pattern: "z+q" }), { maxChars: 8000, grepTimeoutMs: 1 });
    if (r.truncated) expect(r.notice).toMatch(/scan stopped at line [\d,]+ after the 1 ms limit/);
    else expect(r.notice).toBe("grep /z+q/: 0 matching lines of 200,000, 0 shown");
  });
});

describe("parseSelector", () => {
  it.each([
    [{ kind: "nope" }, /`kind` to be one of/],
    [{ kind: "head", lines: -1 }, /`lines` to be an integer between 1/],
    [{ kind: "range", start: 5, end: 2 }, /`end` >= `start` \(5\)/],
    [{ kind: "head", pattern: "x" }, /only `kind`, `lines` in a `head` selector, got `pattern`/],
    [{ kind: "grep", pattern: "" }, /non-empty string/],
    [[1], /selector object/],
    ["grep", /selector object or one of/],
  ])("refuses %j", (input, message) => {
    expect(() => parseSelector(input)).toThrow(message);
  });

  it("accepts shorthands and defaults", () => {
    expect(parseSelector(undefined)).toEqual({ kind: "headtail" });
    expect(parseSelector("tail")).toEqual({ kind: "tail" });
    expect(parseSelector({ kind: "grep", pattern: "x" })).toEqual({
      kind: "grep",
      pattern: "x",
      flags: "",
      context: 0,
    });
  });
});
