import { describe, expect, it } from "vitest";
import { tryParseJson } from "./json.js";

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
