import { countLines } from "../format/meta.js";

/**
 * A text the selectors read by position: a whole string, or an artifact whose
 * chunks are decoded only where the selector looks. Offsets are UTF-16 code
 * units of the whole text, as with a string; lines are 1-based.
 */
export interface TextView {
  /** Length in UTF-16 code units. */
  readonly length: number;
  /** Lines as selectors count them: a trailing newline does not open a new line. */
  readonly totalLines: number;
  /** The code unit at `index` as a string, "" outside the text. */
  charAt(index: number): string;
  /** As `String#indexOf("\n", from)`. */
  indexOf(search: "\n", from?: number): number;
  /** As `String#lastIndexOf("\n", from)`. */
  lastIndexOf(search: "\n", from?: number): number;
  /** As `String#slice`. */
  slice(start: number, end?: number): string;
  /** Offset where 1-based `line` starts (the text's length when past the end). */
  lineStart(line: number): number;
  /** 1-based line of the code unit at `offset`. */
  lineAt(offset: number): number;
}

/** A {@link TextView} over a string; line lookups scan it. */
export function stringView(text: string): TextView {
  let lines: number | undefined;
  return {
    length: text.length,
    get totalLines() {
      lines ??= countLines(text);
      return lines;
    },
    charAt: (i) => text.charAt(i),
    indexOf: (s, from) => text.indexOf(s, from),
    lastIndexOf: (s, from) => text.lastIndexOf(s, from),
    slice: (a, b) => text.slice(a, b),
    lineStart(line) {
      let offset = 0;
      for (let n = 1; n < line; n++) {
        const nl = text.indexOf("\n", offset);
        if (nl < 0) return text.length;
        offset = nl + 1;
      }
      return offset;
    },
    lineAt(offset) {
      let n = 1;
      let i = text.indexOf("\n");
      while (i >= 0 && i < offset) {
        n++;
        i = text.indexOf("\n", i + 1);
      }
      return n;
    },
  };
}

/** Wraps a string; passes a view through. */
export function asView(text: string | TextView): TextView {
  return typeof text === "string" ? stringView(text) : text;
}
