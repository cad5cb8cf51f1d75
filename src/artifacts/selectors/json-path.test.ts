import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeValue } from "../../errors.js";
import { JsonList, prettyJsonPrefix } from "./json-bounded.js";
import { matchJsonPath, type JsonPathStep } from "./json-path.js";

/** The plain definition: every match with its path, breadth first, the first failure recorded. */
function reference(root: unknown, steps: JsonPathStep[]): { values: unknown[]; missing?: string } {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  let current: Array<{ value: unknown; at: string }> = [{ value: root, at: "$" }];
  let missing: string | undefined;
  for (const step of steps) {
    const next: typeof current = [];
    for (const { value, at } of current) {
      if ("wildcard" in step) {
        if (Array.isArray(value)) value.forEach((v, n) => next.push({ value: v, at: `${at}[${n}]` }));
        else if (isObject(value)) for (const [k, v] of Object.entries(value)) next.push({ value: v, at: `${at}.${k}` });
        else missing ??= `no elements at ${at} (${describeValue(value)})`;
      } else if ("index" in step) {
        if (!Array.isArray(value)) {
          missing ??= `no array at ${at}`;
          continue;
        }
        const n = step.index < 0 ? value.length + step.index : step.index;
        if (n >= 0 && n < value.length) next.push({ value: value[n], at: `${at}[${n}]` });
        else missing ??= `index ${step.index} out of range at ${at} (length ${value.length})`;
      } else if (isObject(value) && Object.hasOwn(value, step.key)) {
        next.push({ value: value[step.key], at: `${at}.${step.key}` });
      } else {
        missing ??= isObject(value) ? `missing member \`${step.key}\` at ${at}` : `no object at ${at}`;
      }
    }
    current = next;
  }
  return current.length === 0 && missing ? { values: [], missing } : { values: current.map((c) => c.value) };
}

const stepArb: fc.Arbitrary<JsonPathStep> = fc.oneof(
  fc.constant({ wildcard: true as const }),
  fc.integer({ min: -3, max: 3 }).map((index) => ({ index })),
  fc.constantFrom("a", "b", "0", "").map((key) => ({ key })),
);
const docArb = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe("JSONPath matching", () => {
  it("finds the same matches, in the same order, with the same explanation as the breadth-first definition", () => {
    fc.assert(
      fc.property(docArb, fc.array(stepArb, { maxLength: 4 }), (doc, steps) => {
        const lazy = matchJsonPath(doc, steps);
        const ref = reference(doc, steps);
        expect([...lazy.values()]).toEqual(ref.values);
        expect(lazy.count).toBe(ref.values.length);
        expect(lazy.missing).toBe(ref.missing);
      }),
      { numRuns: 1_000 },
    );
  });

  it("prints a prefix of JSON.stringify(value, null, 2), lists included, complete only when it all fits", () => {
    fc.assert(
      fc.property(fc.array(docArb, { maxLength: 6 }), fc.integer({ min: 1, max: 300 }), (items, limit) => {
        for (const [value, printed] of [
          [items, prettyJsonPrefix(new JsonList(items), limit)],
          [items[0] ?? null, prettyJsonPrefix(items[0] ?? null, limit)],
        ] as const) {
          const full = JSON.stringify(value, null, 2);
          expect(printed).toEqual({ text: full.slice(0, limit), complete: full.length <= limit });
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it("counts the matches of $[*][*] over 200,000 values without reading past the printed ones", () => {
    const doc = Array.from({ length: 20_000 }, (_, i) => Array.from({ length: 10 }, (_, j) => i * 10 + j));
    const result = matchJsonPath(doc, [{ wildcard: true }, { wildcard: true }]);
    expect(result.count).toBe(200_000);
    let read = 0;
    const counted = (function* () {
      for (const v of result.values()) {
        read++;
        yield v;
      }
    })();
    const printed = prettyJsonPrefix(new JsonList(counted), 100);
    expect(printed.complete).toBe(false);
    expect(printed.text.startsWith("[\n  0,\n  1,\n  2,")).toBe(true);
    expect(read).toBeLessThan(40);
  });
});
