import { describe, expect, it } from "vitest";
import { isLedgerError } from "./errors.js";
import { parseJsonOrThrow, safeJson, tryParseJson } from "./json.js";

describe("tryParseJson", () => {
  it("gives the value of JSON text, null included", () => {
    expect(tryParseJson('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(tryParseJson("null")).toBeNull();
    expect(tryParseJson("0")).toBe(0);
  });

  it("gives undefined for text that is not JSON, a torn line among them", () => {
    expect(tryParseJson('{"a":1')).toBeUndefined();
    expect(tryParseJson("")).toBeUndefined();
    expect(tryParseJson("undefined")).toBeUndefined();
  });
});

describe("parseJsonOrThrow", () => {
  it("gives the value of JSON text, and for other text throws the given code with the parser's reason", () => {
    expect(parseJsonOrThrow('{"a":[1]}', "state_corrupt", () => "unused")).toEqual({ a: [1] });
    let thrown: unknown;
    try {
      parseJsonOrThrow('{"a":', "selector_invalid", (reason) => `Expected JSON, got ${reason}`);
    } catch (err) {
      thrown = err;
    }
    expect(isLedgerError(thrown, "selector_invalid")).toBe(true);
    expect((thrown as Error).message).toMatch(/^Expected JSON, got .+/);
    expect((thrown as Error).message).not.toBe("Expected JSON, got ");
    expect((thrown as Error).cause).toBeInstanceOf(SyntaxError);
  });
});

describe("safeJson", () => {
  it("writes JSON, a cycle as [cycle] and a value repeated off its own path in full", () => {
    const shared = { n: 1 };
    const looped: Record<string, unknown> = { a: 1 };
    looped.self = looped;
    expect(safeJson({ x: shared, y: shared })).toBe('{"x":{"n":1},"y":{"n":1}}');
    expect(safeJson(looped)).toBe('{"a":1,"self":"[cycle]"}');
    expect(safeJson([shared, [shared]])).toBe('[{"n":1},[{"n":1}]]');
  });

  it("never throws: a BigInt becomes its digits, an unwritable value and undefined become an empty string", () => {
    const hostile = {
      get boom(): never {
        throw new Error("getter");
      },
    };
    expect(safeJson({ big: 10n })).toBe('{"big":"10"}');
    expect(safeJson(hostile)).toBe("");
    expect(
      safeJson({
        toJSON: () => {
          throw new Error("toJSON");
        },
      }),
    ).toBe("");
    expect(safeJson({ toString: 1 })).toBe('{"toString":1}');
    expect(safeJson(undefined)).toBe("");
    expect(safeJson("text")).toBe('"text"');
  });
});
