import { describe, expect, it } from "vitest";
import { isLedgerError } from "../errors.js";
import { encodingForModel, isBpeTableLoaded, loadBpeTable, type EncodingName } from "./encoder.js";

describe("encodingForModel", () => {
  it.each([
    ["gpt-4o", "o200k_base"],
    ["gpt-4o-mini-2024-07-18", "o200k_base"],
    ["openai/gpt-4.1", "o200k_base"],
    ["GPT-5-mini", "o200k_base"],
    ["o1", "o200k_base"],
    ["o3-mini", "o200k_base"],
    ["o4-mini-2025-04-16", "o200k_base"],
    ["gpt-oss-120b", "o200k_base"],
    ["gpt-4", "cl100k_base"],
    ["gpt-4-turbo-2024-04-09", "cl100k_base"],
    ["gpt-4-32k", "cl100k_base"],
    ["gpt-3.5-turbo", "cl100k_base"],
    ["azure/gpt-35-turbo", "cl100k_base"],
    ["text-embedding-3-small", "cl100k_base"],
    ["claude-sonnet-4", "o200k_base"],
    ["mock-model", "o200k_base"],
    ["o10-preview", "o200k_base"],
    ["", "o200k_base"],
  ] as const)("%s -> %s", (model, expected) => {
    expect(encodingForModel(model)).toBe(expected);
  });

  it("uses o200k_base without a model id", () => {
    expect(encodingForModel()).toBe("o200k_base");
    expect(encodingForModel(undefined, "auto")).toBe("o200k_base");
  });

  it("lets an explicit override win over the model id", () => {
    expect(encodingForModel("gpt-4o", "cl100k_base")).toBe("cl100k_base");
    expect(encodingForModel("gpt-4", "o200k_base")).toBe("o200k_base");
  });
});

describe("loadBpeTable", () => {
  it("loads o200k_base once and keeps it", () => {
    const table = loadBpeTable("o200k_base");
    expect(isBpeTableLoaded("o200k_base")).toBe(true);
    expect(loadBpeTable("o200k_base")).toBe(table);
    // 199,998 ordinary ranks (special tokens are not in the table).
    expect(table.ranks.size).toBe(199_998);
    expect(table.maxTokenBytes).toBe(128);
    expect(table.ranks.get("hello")).toBeTypeOf("number");
  });

  it("loads cl100k_base", () => {
    const table = loadBpeTable("cl100k_base");
    expect(table.name).toBe("cl100k_base");
    expect(table.ranks.size).toBe(100_256);
  });

  it("rejects an unknown encoding with tokenizer_unavailable", () => {
    let caught: unknown;
    try {
      loadBpeTable("p50k_base" as EncodingName);
    } catch (err) {
      caught = err;
    }
    expect(isLedgerError(caught, "tokenizer_unavailable")).toBe(true);
    expect((caught as Error).message).toBe(
      'Expected encoding to be one of o200k_base, cl100k_base, got `"p50k_base"` (string)',
    );
  });
});
