import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTextTokens } from "./count-text.js";
import type { EncodingName } from "./encoder.js";

// The reference: js-tiktoken itself, with special-token text treated as plain text.
const reference: Record<EncodingName, Tiktoken> = {
  o200k_base: new Tiktoken(o200k),
  cl100k_base: new Tiktoken(cl100k),
};
const exact = (text: string, encoding: EncodingName = "o200k_base"): number =>
  reference[encoding].encode(text, [], []).length;

/** Deterministic pseudo-random bytes (xorshift32), so expectations are stable. */
function pseudoRandomBytes(length: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const SAMPLES: Record<string, string> = {
  prose:
    "The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll see who's there — and don't forget the 12,345 items!\n\n",
  code: "export function add(a: number, b: number): number {\n  return a + b; // sum\n}\n\nconst xs = [1, 2, 3].map((x) => x * 2);\n\tif (xs.length > 2) { console.log(`len=${xs.length}`); }\n",
  json: JSON.stringify({
    id: 42,
    name: "widget",
    tags: ["a", "b"],
    nested: { ok: true, ratio: 0.125, empty: null },
    list: [{ k: 1 }, { k: 2 }],
  }),
  html: '<!DOCTYPE html><html><head><meta charset="utf-8"><title>T</title></head><body><div class="a b" id="x"><p>Hello&nbsp;<b>world</b></p></div></body></html>',
  log: "2026-09-06T12:00:01.123Z INFO  [gateway] request id=abc123 took 15ms\n2026-09-06T12:00:02.456Z ERROR [exec] exit code 1: ENOENT /tmp/x\n",
  unicode: "Ünïcödé façade naïve — “quotes” 日本語のテキストです。 Привет, мир! 🎉👩‍👩‍👧 ١٢٣ ＡＢＣ\r\n",
  whitespace: "a  b   c\t\t\td\n\n\n   \r\n  e     ",
  special: "before <|endoftext|> middle <|endofprompt|> after",
};

describe("countTextTokens", () => {
  for (const encoding of ["o200k_base", "cl100k_base"] as const) {
    it.each(Object.entries(SAMPLES))(`equals js-tiktoken on %s (${encoding})`, (_kind, text) => {
      const repeated = text.repeat(20);
      expect(countTextTokens(text, encoding)).toBe(exact(text, encoding));
      expect(countTextTokens(repeated, encoding)).toBe(exact(repeated, encoding));
    });
  }

  it("gives explicit counts for known strings", () => {
    expect(countTextTokens("")).toBe(0);
    expect(countTextTokens("hello world")).toBe(2);
    expect(countTextTokens("x".repeat(64))).toBe(8);
    expect(countTextTokens("x".repeat(4096))).toBe(512);
  });

  it("counts special-token text as plain text instead of throwing", () => {
    expect(() => countTextTokens("<|endoftext|>")).not.toThrow();
    expect(countTextTokens("<|endoftext|>")).toBe(exact("<|endoftext|>"));
    expect(countTextTokens("<|endoftext|>")).toBeGreaterThan(1);
  });

  it("counts lone surrogates as U+FFFD without throwing", () => {
    for (const text of ["\uD800", "a\uDC00b", "\uDBFF\uDBFF x \uD83D\uDE00", "\uDE00\uD83D"]) {
      expect(countTextTokens(text)).toBe(exact(text));
    }
  });

  it("returns 0 for a non-string", () => {
    expect(countTextTokens(undefined as unknown as string)).toBe(0);
    expect(countTextTokens(42 as unknown as string)).toBe(0);
  });

  it("equals js-tiktoken on long single pre-tokens (where splitting would err)", () => {
    for (const text of [
      "x".repeat(1000),
      " ".repeat(700),
      "=".repeat(900),
      "é".repeat(400),
      "日".repeat(300),
      "\n".repeat(500),
      "Ab".repeat(300),
    ]) {
      expect(countTextTokens(text)).toBe(exact(text));
      expect(countTextTokens(text, "cl100k_base")).toBe(exact(text, "cl100k_base"));
    }
    const letters = Array.from(pseudoRandomBytes(1500), (b) => String.fromCharCode(97 + (b % 26))).join("");
    expect(countTextTokens(letters)).toBe(exact(letters));
  });

  it("equals js-tiktoken on arbitrary strings (property)", () => {
    const texts = fc.oneof(
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.string({ unit: "grapheme", maxLength: 200 }),
      fc.string({
        unit: fc.constantFrom("a", "A", " ", "\n", "1", "=", "'", "é", "日", "\uD800", "s"),
        maxLength: 400,
      }),
      fc
        .tuple(fc.constantFrom("x", " ", "-", "Z", "0", "\t", "ä"), fc.integer({ min: 1, max: 600 }))
        .map(([c, n]) => c.repeat(n)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b).toString("base64")),
    );
    fc.assert(
      fc.property(texts, fc.constantFrom<EncodingName>("o200k_base", "cl100k_base"), (text, encoding) => {
        expect(countTextTokens(text, encoding)).toBe(exact(text, encoding));
      }),
      { numRuns: 400 },
    );
  });

  it("completes a 1,000,000-char run of one character", () => {
    expect(countTextTokens("x".repeat(1_000_000))).toBe(125_000);
    expect(countTextTokens(" ".repeat(1_000_000))).toBe(7_813);
  });

  it("completes 1 MB of base64 with the exact count", () => {
    const base64 = pseudoRandomBytes(786_432).toString("base64");
    expect(base64.length).toBe(1_048_576);
    expect(countTextTokens(base64)).toBe(exact(base64));
  });
});
