import { LedgerError } from "../errors.js";
import { fmt } from "./text-window.js";

/** Largest artifact a `json` selector parses (a parse costs several times the text in memory). */
export const JSON_SELECTOR_MAX_CHARS = 16_000_000;

// The last parse, reused while the model walks the same artifact with several paths.
let lastParse: { text: string; root: unknown } | undefined;

/**
 * Parses an artifact for a `json` selector: refuses (`selector_invalid`) texts
 * over {@link JSON_SELECTOR_MAX_CHARS} or that are not JSON, and caches the
 * last parse so consecutive selectors on one artifact parse it once.
 */
export function parseJsonArtifact(text: string): unknown {
  assertJsonSelectable(text.length);
  if (lastParse && lastParse.text.length === text.length && lastParse.text === text) return lastParse.root;
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    throw new LedgerError(
      "selector_invalid",
      `Expected the artifact to be JSON for a \`json\` selector, got ${(err as Error).message}; use grep or range instead`,
      { cause: err },
    );
  }
  lastParse = { text, root };
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
 * to the whole value. `value` is parsed JSON (no `toJSON`, no cycles).
 */
export function prettyJsonPrefix(value: unknown, limit: number): PrettyPrefix {
  const parts: string[] = [];
  let size = 0;
  const write = (s: string): boolean => {
    parts.push(s);
    size += s.length;
    return size < limit;
  };
  type Frame = { entries: Array<[string | undefined, unknown]>; next: number; close: string; indent: string };
  const stack: Frame[] = [];
  const openValue = (v: unknown, indent: string): boolean => {
    if (v === null || typeof v !== "object") return write(JSON.stringify(v) ?? "null");
    const isArray = Array.isArray(v);
    const entries: Array<[string | undefined, unknown]> = isArray
      ? v.map((x) => [undefined, x])
      : Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return write(isArray ? "[]" : "{}");
    stack.push({ entries, next: 0, close: isArray ? "]" : "}", indent });
    return write(isArray ? "[" : "{");
  };
  let going = openValue(value, "");
  while (going && stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next >= frame.entries.length) {
      stack.pop();
      going = write(`\n${frame.indent}${frame.close}`);
      continue;
    }
    const [key, v] = frame.entries[frame.next] as [string | undefined, unknown];
    const inner = `${frame.indent}  `;
    going = write(`${frame.next > 0 ? "," : ""}\n${inner}${key === undefined ? "" : `${JSON.stringify(key)}: `}`);
    frame.next++;
    if (going) going = openValue(v, inner);
  }
  const text = parts.join("");
  const complete = stack.length === 0 && size <= limit;
  return { text: complete ? text : text.slice(0, limit), complete };
}
