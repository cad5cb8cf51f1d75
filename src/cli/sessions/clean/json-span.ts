import { LedgerError } from "../../../errors.js";

/** One step into a JSON value: a member name or an array index. */
export type JsonStep = string | number;

/**
 * Byte range `[start, end)` of the value at `path` inside one JSON text given
 * as a latin1 string (one char per byte, so offsets are byte offsets and
 * non-ASCII bytes, even invalid UTF-8, pass untouched). Duplicate members
 * resolve to the last one, as `JSON.parse` does. Nothing is converted, so an
 * edit spliced at this range leaves every other byte (numbers, escapes,
 * spacing) exactly as it was. Throws `state_corrupt` when the path is absent.
 */
export function findJsonValueSpan(text: string, path: readonly JsonStep[]): { start: number; end: number } {
  let i = skipWs(text, 0);
  for (const step of path) {
    if (typeof step === "string") {
      if (text[i] !== "{") throw missing(path, step);
      i = skipWs(text, i + 1);
      let found = -1;
      while (text[i] !== "}") {
        const keyStart = i;
        i = skipString(text, i);
        const key = JSON.parse(Buffer.from(text.slice(keyStart, i), "latin1").toString("utf8")) as string;
        i = skipWs(text, i);
        if (text[i] !== ":") throw missing(path, step);
        i = skipWs(text, i + 1);
        if (key === step) found = i;
        i = skipWs(text, skipValue(text, i));
        if (text[i] === ",") i = skipWs(text, i + 1);
        else if (text[i] !== "}") throw missing(path, step);
      }
      if (found < 0) throw missing(path, step);
      i = found;
    } else {
      if (text[i] !== "[") throw missing(path, step);
      i = skipWs(text, i + 1);
      for (let n = 0; n < step; n++) {
        if (text[i] === "]") throw missing(path, step);
        i = skipWs(text, skipValue(text, i));
        if (text[i] !== ",") throw missing(path, step);
        i = skipWs(text, i + 1);
      }
      if (text[i] === "]") throw missing(path, step);
    }
  }
  return { start: i, end: skipValue(text, i) };
}

function skipWs(s: string, i: number): number {
  while (i < s.length && (s[i] === " " || s[i] === "\t" || s[i] === "\n" || s[i] === "\r")) i++;
  return i;
}

function skipString(s: string, i: number): number {
  if (s[i] !== '"')
    throw new LedgerError(
      "state_corrupt",
      `Expected a JSON string at byte ${i}, got ${JSON.stringify(s[i] ?? "end of line")}`,
    );
  for (i++; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === '"') return i + 1;
  }
  throw new LedgerError("state_corrupt", "Expected a closing quote, got the end of the line");
}

/** End of the value starting at `i`; nesting is counted, not recursed (any depth is safe). */
function skipValue(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return skipString(s, i);
  if (c === "{" || c === "[") {
    let depth = 0;
    while (i < s.length) {
      const ch = s[i];
      if (ch === '"') {
        i = skipString(s, i);
        continue;
      }
      if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    throw new LedgerError("state_corrupt", "Expected the JSON value to close, got the end of the line");
  }
  while (i < s.length && !",}] \t\r\n".includes(s[i] as string)) i++;
  return i;
}

function missing(path: readonly JsonStep[], step: JsonStep): LedgerError {
  return new LedgerError(
    "state_corrupt",
    `Expected the entry to hold ${path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("")}, got no ${typeof step === "number" ? `element ${step}` : `member \`${step}\``}`,
  );
}
