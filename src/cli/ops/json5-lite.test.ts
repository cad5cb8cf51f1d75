import { describe, expect, it } from "vitest";
import { json5ToJson } from "./json5-lite.js";

describe("json5ToJson", () => {
  it("parses the openclaw.json operators write", () => {
    const text = `{
  // the engine slot
  plugins: {
    slots: { contextEngine: 'context-ledger' }, /* block comment */
    entries: {
      "context-ledger": {
        enabled: true,
        config: { limits: { maxStoreBytes: 0x40000000, }, offload: { previewChars: +800 }, note: 'it\\'s "quoted" // not a comment', },
      },
    },
  },
  agents: { list: [{ id: "main", ratio: 1e3, neg: -2.5 }, ], },
}`;
    expect(JSON.parse(json5ToJson(text))).toEqual({
      plugins: {
        slots: { contextEngine: "context-ledger" },
        entries: { "context-ledger": { enabled: true, config: { limits: { maxStoreBytes: 1073741824 }, offload: { previewChars: 800 }, note: `it's "quoted" // not a comment` } } },
      },
      agents: { list: [{ id: "main", ratio: 1000, neg: -2.5 }] },
    });
  });

  it("leaves strict JSON unchanged and lets JSON.parse report the rest", () => {
    const strict = JSON.stringify({ a: [1, "x, }", { b: null }], "c d": false });
    expect(json5ToJson(strict)).toBe(strict);
    expect(() => JSON.parse(json5ToJson("{ a: Infinity }"))).toThrow();
  });
});
