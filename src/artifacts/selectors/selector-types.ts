import type { JsonParseMemo } from "./json-bounded.js";
/** Hard cap of any slice, whatever `maxChars` asks. */
export const HARD_MAX_CHARS = 20_000;
/** Most context lines a grep selector may ask for. */
export const MAX_GREP_CONTEXT = 20;

/** Head and tail of the artifact with the middle left out (the default). */
export interface HeadTailSelector {
  kind: "headtail";
}
/** The first `lines` lines (as many as fit when absent). */
export interface HeadSelector {
  kind: "head";
  lines?: number;
}
/** The last `lines` lines (as many as fit when absent). */
export interface TailSelector {
  kind: "tail";
  lines?: number;
}
/** Lines matching a regular expression, with `context` lines around each. */
export interface GrepSelector {
  kind: "grep";
  pattern: string;
  /** Only `i` (ignore case) and `u` (unicode) are accepted. */
  flags?: string;
  /** Lines of context before and after each match, 0-20. @default 0 */
  context?: number;
}
/** Lines `start` to `end`, 1-based and inclusive. */
export interface RangeSelector {
  kind: "range";
  start: number;
  end: number;
}
/** A value picked by a JSONPath subset (see `json-path.ts`). */
export interface JsonSelector {
  kind: "json";
  path: string;
}

/** How to pick a bounded slice out of an artifact. */
export type Selector = HeadTailSelector | HeadSelector | TailSelector | GrepSelector | RangeSelector | JsonSelector;

/** Names of the selector kinds. */
export const SELECTOR_KINDS = ["headtail", "head", "tail", "grep", "range", "json"] as const;

/** A bounded slice and what it left out. */
export interface Slice {
  /** The selected text, at most `maxChars` characters. */
  text: string;
  /** Says what is shown and what was left out, e.g. "lines 1-120 of 2,104 shown". */
  notice: string;
  /** True when anything the selector asked for was left out. */
  truncated: boolean;
  totalLines: number;
  totalChars: number;
}

/** Options for `selectSlice`. */
export interface SliceOptions {
  /** Cap of the answer in characters (clamped to `hardMaxChars`). */
  maxChars: number;
  /** @default 20000 */
  hardMaxChars?: number;
  /** Time limit of a grep scan. @default 500 */
  grepTimeoutMs?: number;
  /** Where a `json` selector keeps its last parse (the store's own); none: parsed every time. */
  jsonMemo?: JsonParseMemo;
}
