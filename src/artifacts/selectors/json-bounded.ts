import { LedgerError } from "../../errors.js";
import { parseJsonOrThrow } from "../../json.js";
import { fmt } from "./line-windows.js";

/** Largest artifact a `json` selector parses (a parse costs several times the text in memory). */
export const JSON_SELECTOR_MAX_CHARS = 16_000_000;

/** One owner's last parse (a store keeps one), reused while the model walks the same artifact with several paths. */
export interface JsonParseMemo {
  last?: { text: string; root: unknown };
}

/**
 * Parses an artifact for a `json` selector: refuses (`selector_invalid`) texts
 * over {@link JSON_SELECTOR_MAX_CHARS} or that are not JSON. With a `memo`, the
 * last parse is kept there, so consecutive selectors on one artifact parse it once.
 */
export function parseJsonArtifact(text: string, memo?: JsonParseMemo): unknown {
  assertJsonSelectable(text.length);
  const last = memo?.last;
  if (last && last.text.length === text.length && last.text === text) return last.root;
  const root = parseJsonOrThrow(
    text,
    "selector_invalid",
    (reason) => `Expected the artifact to be JSON for a \`json\` selector, got ${reason}; use grep or range instead`,
  );
  if (memo) memo.last = { text, root };
  return root;
}

/** Throws `selector_invalid` when an artifact of `chars` chars is too big for a `json` selector. */
export function assertJsonSelectable(chars: number): void {
  if (chars > JSON_SELECTOR_MAX_CHARS) {
    throw new LedgerError(
      "selector_invalid",
      `Expected an artifact of at most ${fmt(JSON_SELECTOR_MAX_CHARS)} chars for a \`json\` selector, got ${fmt(chars)}; use grep or range instead`,
    );
  }
}

/** The result of {@link prettyJsonPrefix}. */
export interface PrettyPrefix {
  text: string;
  /** True when the whole value was written (`text` is then `JSON.stringify(value, null, 2)`). */
  complete: boolean;
}

/**
 * `JSON.stringify(value, null, 2)`, written iteratively and stopped once
 * `limit` chars are out: a selector answer never costs memory in proportion
 * to the whole value. Arrays and objects are read entry by entry, never
 * copied. `value` is parsed JSON (no `toJSON`, no cycles); a {@link JsonList}
 * prints as an array of its items, read only as far as the output goes.
 */
export function prettyJsonPrefix(value: unknown, limit: number): PrettyPrefix {
  const parts: string[] = [];
  let size = 0;
  const write = (s: string): boolean => {
    parts.push(s);
    size += s.length;
    return size < limit;
  };
  type Frame = { entries: Iterator<[string | undefined, unknown]>; first: boolean; close: string; indent: string };
  const stack: Frame[] = [];
  const openValue = (v: unknown, indent: string): boolean => {
    if (v === null || typeof v !== "object") return write(JSON.stringify(v) ?? "null");
    const isArray = Array.isArray(v) || v instanceof JsonList;
    const entries =
      v instanceof JsonList ? listEntries(v.items) : isArray ? arrayEntries(v as unknown[]) : objectEntries(v);
    stack.push({ entries, first: true, close: isArray ? "]" : "}", indent });
    return write(isArray ? "[" : "{");
  };
  let going = openValue(value, "");
  while (going && stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const next = frame.entries.next();
    if (next.done) {
      stack.pop();
      going = write(frame.first ? frame.close : `\n${frame.indent}${frame.close}`);
      continue;
    }
    const [key, v] = next.value;
    const inner = `${frame.indent}  `;
    going = write(`${frame.first ? "" : ","}\n${inner}${key === undefined ? "" : `${JSON.stringify(key)}: `}`);
    frame.first = false;
    if (going) going = openValue(v, inner);
  }
  const text = parts.join("");
  const complete = stack.length === 0 && size <= limit;
  return { text: complete ? text : text.slice(0, limit), complete };
}

/** A list printed as a JSON array by {@link prettyJsonPrefix}, read lazily (the matches of a wildcard path). */
export class JsonList {
  readonly items: Iterable<unknown>;

  constructor(items: Iterable<unknown>) {
    this.items = items;
  }
}

function* listEntries(items: Iterable<unknown>): Generator<[undefined, unknown]> {
  for (const item of items) yield [undefined, item];
}

function* arrayEntries(list: unknown[]): Generator<[undefined, unknown]> {
  for (let i = 0; i < list.length; i++) yield [undefined, list[i]];
}

function* objectEntries(obj: object): Generator<[string, unknown]> {
  const record = obj as Record<string, unknown>;
  for (const key in record) if (Object.hasOwn(record, key)) yield [key, record[key]];
}
