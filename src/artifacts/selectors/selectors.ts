import { describeValue, LedgerError } from "../../errors.js";
import { grepLines } from "./grep-lines.js";
import { JsonList, parseJsonArtifact, prettyJsonPrefix, type JsonParseMemo } from "./json-bounded.js";
import { matchJsonPath, parseJsonPath } from "./json-path.js";
import { countLines } from "../format/meta.js";
import { compileSafeRegex } from "../../safe-regex.js";
import { HARD_MAX_CHARS, type Selector, type Slice, type SliceOptions } from "./selector-types.js";
import { asView, stringView, type TextView } from "./positional-text.js";
import { chompNewline, describeWindow, fmt, headEnd, lineEndOffset, tailStart } from "./line-windows.js";

export { parseSelector } from "./parse-selector.js";
export { HARD_MAX_CHARS, SELECTOR_KINDS } from "./selector-types.js";
export type { Selector, Slice, SliceOptions } from "./selector-types.js";

/** Room kept for the "lines X-Y omitted" marker of a headtail answer. */
const MARKER_RESERVE = 80;

/**
 * Picks a bounded slice of `source`. Every answer is at most
 * `min(maxChars, hardMaxChars)` characters and its `notice` says what is shown
 * and what was left out. A {@link TextView} is read only where the selector
 * looks, except by `json`, which parses the whole text. Throws
 * `selector_invalid` / `pattern_refused`.
 */
export function selectSlice(source: string | TextView, selector: Selector, options: SliceOptions): Slice {
  const text = asView(source);
  const hard = options.hardMaxChars ?? HARD_MAX_CHARS;
  if (!Number.isInteger(options.maxChars) || options.maxChars < 1) {
    throw new LedgerError(
      "selector_invalid",
      `Expected \`maxChars\` to be a positive integer, got ${describeValue(options.maxChars)}`,
    );
  }
  const budget = Math.min(options.maxChars, hard);
  const totalLines = text.totalLines;
  const totalChars = text.length;
  const base = { totalLines, totalChars };
  const window = (start: number, end: number, [askedStart, askedEnd]: readonly [number, number]): Slice => ({
    ...base,
    text: chompNewline(text.slice(start, end)),
    notice: `${describeWindow(text, start, end, totalLines)} shown (${fmt(end - start)} of ${fmt(totalChars)} chars)`,
    truncated: start > askedStart || end < askedEnd,
  });

  switch (selector.kind) {
    case "head": {
      const limit = selector.lines ? lineEndOffset(text, selector.lines) : text.length;
      return window(0, headEnd(text, 0, limit, budget), [0, limit]);
    }
    case "tail": {
      const from = selector.lines ? text.lineStart(Math.max(1, totalLines - selector.lines + 1)) : 0;
      return window(tailStart(text, from, text.length, budget), text.length, [from, text.length]);
    }
    case "range": {
      if (selector.start > totalLines) {
        return {
          ...base,
          text: "",
          notice: `no lines shown: line ${fmt(selector.start)} is past the end (${fmt(totalLines)} lines)`,
          truncated: false,
        };
      }
      const start = text.lineStart(selector.start);
      const end = lineEndOffset(text, Math.min(selector.end, totalLines));
      return window(start, headEnd(text, start, end, budget), [start, end]);
    }
    case "headtail":
      return headTail(text, budget, base, window);
    case "grep": {
      const safe = compileSafeRegex(selector.pattern, selector.flags ?? "");
      const timeout = options.grepTimeoutMs ?? 500;
      const r = grepLines(text, safe.regex, {
        context: selector.context ?? 0,
        maxChars: budget,
        windowChars: safe.windowChars,
        deadline: Date.now() + timeout,
      });
      const parts = [
        `${fmt(r.matches)}${r.timedOut ? "+" : ""} matching lines of ${fmt(totalLines)}, ${fmt(r.shownMatches)} shown`,
      ];
      if (r.outputFull) parts.push(`the rest left out to fit ${fmt(budget)} chars`);
      if (r.timedOut) parts.push(`scan stopped at line ${fmt(r.scannedLines)} after the ${fmt(timeout)} ms limit`);
      if (r.windowed)
        parts.push(`lines over ${fmt(safe.windowChars)} chars were searched in overlapping windows of that size`);
      return {
        ...base,
        text: r.text,
        notice: `grep /${selector.pattern}/${selector.flags ?? ""}: ${parts.join("; ")}`,
        truncated: r.outputFull || r.timedOut,
      };
    }
    case "json":
      return jsonSlice(typeof source === "string" ? source : text.slice(0, text.length), selector.path, base, {
        budget,
        memo: options.jsonMemo,
      });
  }
}

function headTail(
  text: TextView,
  budget: number,
  base: { totalLines: number; totalChars: number },
  window: (s: number, e: number, asked: readonly [number, number]) => Slice,
): Slice {
  if (text.length <= budget) return window(0, text.length, [0, text.length]);
  const room = Math.max(2, budget - MARKER_RESERVE);
  const hEnd = headEnd(text, 0, text.length, Math.floor(room / 2));
  const tStart = tailStart(text, hEnd, text.length, room - hEnd);
  const omitted = `… ${describeWindow(text, hEnd, tStart, base.totalLines).replace(/ of [\d,]+/, "")} omitted (${fmt(tStart - hEnd)} chars) …`;
  const body = `${chompNewline(text.slice(0, hEnd))}\n${omitted}\n${chompNewline(text.slice(tStart))}`;
  return {
    ...base,
    text: body.length > budget ? body.slice(0, budget) : body,
    notice: `${describeWindow(text, 0, hEnd, base.totalLines).replace(/ of [\d,]+/, "")} and ${describeWindow(text, tStart, text.length, base.totalLines)} shown (${fmt(hEnd + text.length - tStart)} of ${fmt(base.totalChars)} chars)`,
    truncated: true,
  };
}

function jsonSlice(
  text: string,
  path: string,
  base: { totalLines: number; totalChars: number },
  { budget, memo }: { budget: number; memo: JsonParseMemo | undefined },
): Slice {
  const steps = parseJsonPath(path);
  const result = matchJsonPath(parseJsonArtifact(text, memo), steps);
  if (result.count === 0) {
    return { ...base, text: "", notice: `${path}: no value (${result.missing ?? "no matches"})`, truncated: false };
  }
  // Written only as far as the answer can show (plus room to cut at a line end), never the whole value.
  const limit = Math.max(budget * 2, 4_096);
  const pretty = result.multiple
    ? prettyJsonPrefix(new JsonList(result.values()), limit)
    : prettyJsonPrefix(result.values()[Symbol.iterator]().next().value, limit);
  const out = pretty.text;
  const view = stringView(out);
  const end = headEnd(view, 0, out.length, budget);
  const what = result.multiple ? `${fmt(result.count)} matches` : "1 value";
  let shownPart = `${fmt(out.length)} chars shown`;
  if (!pretty.complete)
    shownPart = `chars 1-${fmt(end)} of more than ${fmt(out.length)} shown (lines 1-${fmt(countLines(out.slice(0, end)))} of the pretty-printed value)`;
  else if (end < out.length)
    shownPart = `chars 1-${fmt(end)} of ${fmt(out.length)} shown (${describeWindow(view, 0, end, view.totalLines)} of the pretty-printed value)`;
  return {
    ...base,
    text: chompNewline(out.slice(0, end)),
    notice: `${path}: ${what}; ${shownPart}`,
    truncated: end < out.length || !pretty.complete,
  };
}
