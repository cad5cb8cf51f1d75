import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { handleForBytes } from "../artifacts/index.js";
import { isLedgerPointer, planSchemaStrip, restoreStripped } from "./strip-schema.js";

const PROPS = {
  type: "object",
  properties: Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [
      `field${i}`,
      { type: "string", description: `the ${i}th field of the thing` },
    ]),
  ),
};

describe("schema stripping", () => {
  it("moves schema material into parts and leaves pointers; the rest is unchanged", async () => {
    const original = { ok: true, name: "search", inputSchema: PROPS, result: { items: [1, 2, 3], required: ["a"] } };
    const plan = planSchemaStrip(JSON.stringify(original));
    expect(plan.changed).toBe(true);
    expect(plan.parts.map((p) => [p.path, p.reason])).toEqual([["$.inputSchema", "schema"]]);
    const out = JSON.parse(plan.text);
    expect(out.ok).toBe(true);
    expect(out.result).toEqual({ items: [1, 2, 3], required: ["a"] }); // too small to be worth a pointer
    const part = plan.parts[0]!;
    expect(out.inputSchema).toEqual({ $ledger: handleForBytes(part.content), bytes: part.bytes, format: "json" });
    expect(isLedgerPointer(out.inputSchema)).toBe(true);
    const store = new Map(plan.parts.map((p) => [p.handle, p.content]));
    expect(await restoreStripped(plan.text, (h) => store.get(h)!)).toEqual(original);
  });

  it("moves any field over maxFieldBytes, keeping strings as text artifacts", async () => {
    const big = "z".repeat(20_000);
    const plan = planSchemaStrip(JSON.stringify({ a: 1, blob: big, list: [{ small: 1 }] }), { maxFieldBytes: 10_240 });
    expect(plan.parts).toHaveLength(1);
    expect(plan.parts[0]).toMatchObject({
      path: "$.blob",
      reason: "large-field",
      format: "text",
      content: big,
      bytes: 20_000,
    });
    expect(plan.text.length).toBeLessThan(200);
  });

  it("leaves non-JSON, JSON without schema material, and JSON with $ledger keys untouched", () => {
    for (const text of [
      "plain text",
      "{not json",
      JSON.stringify({ a: [1, 2] }),
      JSON.stringify({ $ledger: "x", schema: PROPS }),
    ]) {
      expect(planSchemaStrip(text)).toEqual({ text, changed: false, parts: [] });
    }
  });

  it("round-trips: original = result + stashed parts (property)", async () => {
    const keyArb = fc.oneof(
      fc.constantFrom(
        "schema",
        "properties",
        "required",
        "$defs",
        "definitions",
        "$schema",
        "inputSchema",
        "data",
        "x",
      ),
      fc.string({ maxLength: 6 }),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.string({ maxLength: 300 }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        tie("arr"),
        tie("obj"),
      ),
      arr: fc.array(tie("value"), { maxLength: 6 }),
      obj: fc.dictionary(keyArb, tie("value"), { maxKeys: 6 }),
    }));
    await fc.assert(
      fc.asyncProperty(json.obj, fc.integer({ min: 256, max: 2_000 }), async (original, maxFieldBytes) => {
        const text = JSON.stringify(original);
        const plan = planSchemaStrip(text, { maxFieldBytes });
        const store = new Map(plan.parts.map((p) => [p.handle, p.content]));
        for (const p of plan.parts) expect(p.handle).toBe(handleForBytes(p.content));
        const restored = await restoreStripped(plan.text, (h) => store.get(h) as string);
        expect(restored).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });
});
