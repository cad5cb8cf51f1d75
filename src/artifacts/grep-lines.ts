import { fmt } from "./text-window.js";
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
 * Scans `text` line by line (grep -n style: `12:match`, `11-context`, `--`
 * between groups). Long lines are matched in windows, the clock is checked
 * before every long line or window, and output stops at `maxChars` while counting goes on.
 * A single regex execution that outlives the deadline (polynomial backtracking
 * the pattern check let through) is interrupted by {@link runWithTimeLimit}.
 */
export function grepLines(text: string, regex: RegExp, options: GrepLinesOptions): GrepLinesResult {
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
  const before: Array<{ n: number; line: string }> = [];

  const emit = (n: number, sep: ":" | "-", line: string, at: number): boolean => {
    if (outputFull) return false;
    if (n <= lastPrinted) return true;
    const gap = lastPrinted > 0 && n > lastPrinted + 1 ? "--\n" : "";
    const entry = `${gap}${n}${sep}${shown(line, at)}\n`;
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
      const line = text.slice(offset, end);
      if (line.length > options.windowChars) windowed = true;
      n++;
      offset = end + 1;
      if (((++ticks & 15) === 0 || line.length > 64) && now() > options.deadline) {
        timedOut = true;
        n--;
        break;
      }
      const at = matchIndex(regex, line, options.windowChars, () => now() > options.deadline);
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

function matchIndex(regex: RegExp, line: string, window: number, expired: () => boolean): number | "timeout" {
  if (line.length <= window) return regex.exec(line)?.index ?? -1;
  const step = window - Math.floor(window / 4);
  for (let start = 0; start < line.length; start += step) {
    if (expired()) return "timeout";
    const m = regex.exec(line.slice(start, start + window));
    if (m) return start + m.index;
    if (start + window >= line.length) break;
  }
  return -1;
}

function shown(line: string, at: number): string {
  if (line.length <= GREP_SHOWN_LINE_CHARS) return line;
  const from = at > 100 ? Math.min(at - 100, line.length - GREP_SHOWN_LINE_CHARS) : 0;
  const to = from + GREP_SHOWN_LINE_CHARS;
  return `${from > 0 ? `[…${fmt(from)} chars] ` : ""}${line.slice(from, to)}${to < line.length ? ` [+${fmt(line.length - to)} chars]` : ""}`;
}
