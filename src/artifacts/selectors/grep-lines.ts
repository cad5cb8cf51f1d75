import { asView, type TextView } from "./positional-text.js";
import { fmt } from "./line-windows.js";
import { runWithTimeLimit } from "./time-limit.js";

/** Past the deadline, a scan stuck inside one regex execution is interrupted after this much grace. */
export const GREP_HARD_STOP_GRACE_MS = 50;

/** A printed line is cut to this many characters (around the match for long lines). */
export const GREP_SHOWN_LINE_CHARS = 500;

/** Options for {@link grepLines}. */
export interface GrepLinesOptions {
  context: number;
  /** Lines longer than this are matched in windows overlapping by a quarter (bounds regex cost). */
  windowChars: number;
  maxChars: number;
  /** Epoch ms after which the scan stops. */
  deadline: number;
  /** Clock used for the deadline. @default Date.now */
  now?: () => number;
}

/** What {@link grepLines} found. */
export interface GrepLinesResult {
  text: string;
  matches: number;
  shownMatches: number;
  scannedLines: number;
  timedOut: boolean;
  /** True when the answer ran out of `maxChars` before all matches were shown. */
  outputFull: boolean;
  /** True when some line was longer than the window (a match longer than a quarter window could be missed there). */
  windowed: boolean;
}

/**
 * Scans `source` line by line (grep -n style: `12:match`, `11-context`, `--`
 * between groups). Long lines are matched in windows, the clock is checked
 * before every long line or window, and output stops at `maxChars` while counting goes on.
 * A line is never copied whole when it is longer than the window, so a
 * {@link TextView} over a big artifact is read chunk by chunk in bounded memory.
 * A single regex execution that outlives the deadline (polynomial backtracking
 * the pattern check let through) is interrupted by {@link runWithTimeLimit}.
 */
export function grepLines(source: string | TextView, regex: RegExp, options: GrepLinesOptions): GrepLinesResult {
  const text = asView(source);
  const now = options.now ?? Date.now;
  const out: string[] = [];
  let outChars = 0;
  let outputFull = false;
  let matches = 0;
  let shownMatches = 0;
  let lastPrinted = 0;
  let afterLeft = 0;
  let ticks = 0;
  let windowed = false;
  let timedOut = false;
  const before: Array<{ n: number; line: Span }> = [];

  const emit = (n: number, sep: ":" | "-", line: Span, at: number): boolean => {
    if (outputFull) return false;
    if (n <= lastPrinted) return true;
    const gap = lastPrinted > 0 && n > lastPrinted + 1 ? "--\n" : "";
    const entry = `${gap}${n}${sep}${shown(text, line, at)}\n`;
    if (outChars + entry.length > options.maxChars) {
      outputFull = true;
      return false;
    }
    out.push(entry);
    outChars += entry.length;
    lastPrinted = n;
    return true;
  };

  let n = 0;
  let offset = 0;
  const scan = (): void => {
    while (offset < text.length) {
      const nl = text.indexOf("\n", offset);
      const end = nl < 0 ? text.length : nl;
      const start = offset;
      const line: Span = { start, end };
      if (end - start > options.windowChars) windowed = true;
      n++;
      offset = end + 1;
      if (((++ticks & 15) === 0 || end - start > 64) && now() > options.deadline) {
        timedOut = true;
        n--;
        break;
      }
      const at = matchIndex(regex, text, line, {
        window: options.windowChars,
        expired: () => now() > options.deadline,
      });
      if (at === "timeout") {
        timedOut = true;
        n--;
        break;
      }
      if (at >= 0) {
        matches++;
        if (!outputFull) {
          for (const b of before) emit(b.n, "-", b.line, -1);
          if (emit(n, ":", line, at)) shownMatches++;
        }
        afterLeft = options.context;
        before.length = 0;
      } else if (afterLeft > 0) {
        afterLeft--;
        emit(n, "-", line, -1);
      } else if (options.context > 0) {
        before.push({ n, line });
        if (before.length > options.context) before.shift();
      }
    }
  };
  const run = runWithTimeLimit(scan, Math.max(0, options.deadline - Date.now()) + GREP_HARD_STOP_GRACE_MS);
  if (!run.done) {
    // Interrupted inside line n: it was not scanned.
    timedOut = true;
    n--;
  }
  return {
    text: out.join("").replace(/\n$/, ""),
    matches,
    shownMatches,
    scannedLines: n,
    timedOut,
    outputFull,
    windowed,
  };
}

/** A line's offsets in the text, its newline excluded. */
interface Span {
  start: number;
  end: number;
}

function matchIndex(
  regex: RegExp,
  text: TextView,
  { start: lineStart, end: lineEnd }: Span,
  { window, expired }: { window: number; expired: () => boolean },
): number | "timeout" {
  const length = lineEnd - lineStart;
  if (length <= window) return regex.exec(text.slice(lineStart, lineEnd))?.index ?? -1;
  const step = window - Math.floor(window / 4);
  for (let start = 0; start < length; start += step) {
    if (expired()) return "timeout";
    const m = regex.exec(text.slice(lineStart + start, lineStart + Math.min(length, start + window)));
    if (m) return start + m.index;
    if (start + window >= length) break;
  }
  return -1;
}

function shown(text: TextView, { start: lineStart, end: lineEnd }: Span, at: number): string {
  const length = lineEnd - lineStart;
  if (length <= GREP_SHOWN_LINE_CHARS) return text.slice(lineStart, lineEnd);
  const from = at > 100 ? Math.min(at - 100, length - GREP_SHOWN_LINE_CHARS) : 0;
  const to = from + GREP_SHOWN_LINE_CHARS;
  return `${from > 0 ? `[…${fmt(from)} chars] ` : ""}${text.slice(lineStart + from, lineStart + to)}${to < length ? ` [+${fmt(length - to)} chars]` : ""}`;
}
