import type { TextView } from "./positional-text.js";

/** Formats a count the same way everywhere: `2,104`. */
export function fmt(n: number): string {
  return n.toLocaleString("en-US");
}

/** Offset just past 1-based `line` including its newline (text length when past the end). */
export function lineEndOffset(text: TextView, line: number): number {
  const start = text.lineStart(line);
  const nl = text.indexOf("\n", start);
  return nl < 0 ? text.length : nl + 1;
}

/**
 * End of a forward window over `text[from, to)` of at most `budget` chars,
 * snapped back to a line boundary when one is inside the window.
 */
export function headEnd(text: TextView, from: number, to: number, budget: number): number {
  if (to - from <= budget) return to;
  const hard = from + Math.max(0, budget);
  const nl = text.lastIndexOf("\n", hard - 1);
  return nl >= from ? nl + 1 : hard;
}

/** Start of a backward window over `text[from, to)` of at most `budget` chars, snapped forward to a line start. */
export function tailStart(text: TextView, from: number, to: number, budget: number): number {
  if (to - from <= budget) return from;
  const hard = to - Math.max(0, budget);
  if (hard > 0 && text.charAt(hard - 1) === "\n") return hard;
  const nl = text.indexOf("\n", hard);
  return nl >= 0 && nl + 1 < to ? nl + 1 : hard;
}

/** Drops one trailing newline (line ranges print without it). */
export function chompNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/**
 * Says which lines `text[start, end)` covers: "lines 3-40 of 2,104" plus a note
 * when the window starts or ends inside a line.
 */
export function describeWindow(text: TextView, start: number, end: number, totalLines: number): string {
  if (end <= start) return `no lines of ${fmt(totalLines)}`;
  const first = text.lineAt(start);
  const lastChar = text.charAt(end - 1) === "\n" ? end - 2 : end - 1;
  const last = text.lineAt(Math.max(start, lastChar));
  const cutStart = start > 0 && text.charAt(start - 1) !== "\n";
  const cutEnd = end < text.length && text.charAt(end - 1) !== "\n";
  const range = first === last ? `line ${fmt(first)}` : `lines ${fmt(first)}-${fmt(last)}`;
  const cuts = [cutStart ? `line ${fmt(first)} starts mid-line` : "", cutEnd ? `line ${fmt(last)} cut` : ""].filter(
    Boolean,
  );
  return `${range} of ${fmt(totalLines)}${cuts.length ? ` (${cuts.join(", ")})` : ""}`;
}
