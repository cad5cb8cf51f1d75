/**
 * BPE tables for exact token counting, loaded lazily once per process from
 * the ranks bundled in js-tiktoken (no network).
 *
 * We parse js-tiktoken's rank data ourselves instead of constructing its
 * `Tiktoken` class: its encoder takes ~1.1 s and ~170 MB to load and its
 * merge loop is quadratic in the piece length (see `tokenizer-bpe.ts`). Our
 * table maps each token's bytes, as a binary string (one char per byte), to
 * its rank: ~0.25 s and ~60 MB for o200k_base.
 */
import { createRequire } from "node:module";
import { LedgerError, describeValue, errorMessage } from "../errors.js";

/** The BPE encodings context-ledger counts with. */
export type EncodingName = "o200k_base" | "cl100k_base";

/** A configured encoding: `"auto"` picks by model id (see {@link encodingForModel}). */
export type EncodingChoice = "auto" | EncodingName;

/** Encoding used when nothing better is known. */
export const DEFAULT_ENCODING: EncodingName = "o200k_base";

/** Every supported encoding name. */
const ENCODING_NAMES: readonly EncodingName[] = ["o200k_base", "cl100k_base"];

/** A loaded BPE table. */
export interface BpeTable {
  /** Encoding name. */
  readonly name: EncodingName;
  /** Pre-tokenizer regular expression source; use with flags `"gu"`. */
  readonly pattern: string;
  /** Token bytes (binary string, one char per byte) to rank. */
  readonly ranks: ReadonlyMap<string, number>;
  /** Length in bytes of the longest token; longer byte strings are never tokens. */
  readonly maxTokenBytes: number;
  /** Milliseconds the load took (module require plus parse). */
  readonly loadMs: number;
}

const RANK_MODULES: Record<EncodingName, string> = {
  o200k_base: "js-tiktoken/ranks/o200k_base",
  cl100k_base: "js-tiktoken/ranks/cl100k_base",
};

// Process-wide on purpose: a table costs ~0.7 s and ~170 MB to load, once per process whatever the runtime.
const tables = new Map<EncodingName, BpeTable>();
// A synchronous, lazy load: a static import would evaluate 3.4 MB of rank
// data in every process that merely imports the budget module.
const requireRanks = createRequire(import.meta.url);

/**
 * Chooses the encoding for a model id. An explicit `override` wins; with
 * `"auto"`: gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1/o3/o4, gpt-oss use
 * o200k_base; gpt-4 and gpt-3.5 (and text-embedding-3 / ada-002) use
 * cl100k_base; anything else (including no id and non-OpenAI models) uses
 * o200k_base. A provider prefix (`openai/gpt-4o`) and letter case are ignored.
 */
export function encodingForModel(modelId?: string, override: EncodingChoice = "auto"): EncodingName {
  if (override === "o200k_base" || override === "cl100k_base") return override;
  if (typeof modelId !== "string") return DEFAULT_ENCODING;
  const id = modelId.trim().toLowerCase().split("/").pop() ?? "";
  if (/^(chatgpt-4o|gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o[134])(\b|[-_.:]|$)/.test(id)) return "o200k_base";
  if (/^(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002)(\b|[-_.:]|$)/.test(id)) return "cl100k_base";
  return DEFAULT_ENCODING;
}

/** True once `name`'s table is in memory (loading is lazy). */
export function isBpeTableLoaded(name: EncodingName): boolean {
  return tables.has(name);
}

/**
 * The BPE table for `name`, loaded on first use and kept for the process.
 * @throws {LedgerError} `tokenizer_unavailable` when the name is unknown or
 *   the bundled ranks cannot be loaded or parsed.
 */
export function loadBpeTable(name: EncodingName = DEFAULT_ENCODING): BpeTable {
  const cached = tables.get(name);
  if (cached) return cached;
  if (!Object.hasOwn(RANK_MODULES, name)) {
    throw new LedgerError(
      "tokenizer_unavailable",
      `Expected encoding to be one of ${ENCODING_NAMES.join(", ")}, got ${describeValue(name)}`,
    );
  }
  const started = performance.now();
  let raw: unknown;
  try {
    raw = requireRanks(RANK_MODULES[name]);
  } catch (err) {
    throw new LedgerError("tokenizer_unavailable", `Could not load ${RANK_MODULES[name]}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const data = (raw as { default?: unknown }).default ?? raw;
  const { pat_str: pattern, bpe_ranks: bpeRanks } = (data ?? {}) as { pat_str?: unknown; bpe_ranks?: unknown };
  if (typeof pattern !== "string" || typeof bpeRanks !== "string") {
    throw new LedgerError(
      "tokenizer_unavailable",
      `Expected ${RANK_MODULES[name]} to export { pat_str, bpe_ranks } strings, got ${describeValue(Object.keys(data ?? {}))}`,
    );
  }
  const { ranks, maxTokenBytes } = parseRanks(bpeRanks);
  const table: BpeTable = { name, pattern, ranks, maxTokenBytes, loadMs: performance.now() - started };
  tables.set(name, table);
  return table;
}

// js-tiktoken's format: one line per run of consecutive ranks,
// "<ignored> <first rank> <base64 token> <base64 token> ...".
function parseRanks(bpeRanks: string): { ranks: Map<string, number>; maxTokenBytes: number } {
  const ranks = new Map<string, number>();
  let maxTokenBytes = 1;
  for (const line of bpeRanks.split("\n")) {
    if (line.length === 0) continue;
    const fields = line.split(" ");
    const offset = Number.parseInt(fields[1] ?? "", 10);
    if (!Number.isInteger(offset)) continue;
    for (let i = 2; i < fields.length; i++) {
      const token = atob(fields[i] ?? "");
      ranks.set(token, offset + i - 2);
      if (token.length > maxTokenBytes) maxTokenBytes = token.length;
    }
  }
  if (ranks.size < 256) {
    throw new LedgerError("tokenizer_unavailable", `Expected at least 256 BPE ranks, got ${ranks.size}`);
  }
  return { ranks, maxTokenBytes };
}
