import { tryParseJson } from "../json.js";
import { countLines, fmt } from "../artifacts/index.js";
import { detectFormat, type OutputFormat } from "./detect-format.js";

/** Options for {@link summarizeOutput}. */
export interface SummarizeOptions {
  toolName?: string;
  /** Detected when absent. */
  format?: OutputFormat;
  /** Exit code from the tool's details; otherwise looked for in the text. */
  exitCode?: number | null;
}

const ERROR_LINE = /\b(?:error|errors|fatal|exception|traceback|failed|failure|panic)\b|^E\s/i;
// Bounded runs around the separator: `\s*[:=]?\s*` tried every split of a long space run (quadratic).
const EXIT_CODE =
  /\b(?:exit(?:ed)?(?: with)?(?: code| status)|exitCode"?|exit_code"?|return code)\s{0,16}(?:[:=]\s{0,16})?(-?\d{1,4})\b/gi;
const SCAN_LIMIT = 4_000_000;
const QUOTE_CHARS = 120;
/** JSON larger than this gets no key list (a full parse would slow assemble down). */
const JSON_SHAPE_LIMIT = 512_000;

/**
 * A deterministic 1-3 line summary of a tool output: size, lines, format and
 * exit code; for command output the error lines (count and first one); for
 * JSON its top-level keys or length.
 */
export function summarizeOutput(text: string, options: SummarizeOptions = {}): string {
  const format = options.format ?? detectFormat(text, { toolName: options.toolName });
  const head: string[] = [];
  if (options.toolName) head.push(`${options.toolName} output`);
  head.push(`${fmt(text.length)} chars`, `${fmt(countLines(text))} lines`, format);
  const exit = options.exitCode ?? findExitCode(text);
  if (exit !== undefined && exit !== null) head.push(`exit code ${exit}`);
  const lines = [head.join(" · ")];
  if (format === "json") {
    const shape = jsonShape(text);
    if (shape) lines.push(shape);
  } else {
    const errors = findErrorLines(text);
    if (errors.count > 0) {
      lines.push(
        `error lines: ${fmt(errors.count)}${errors.capped ? "+" : ""}, first at line ${fmt(errors.firstLine)}: ${quote(errors.first)}`,
      );
      if (errors.count > 1 && errors.last !== errors.first)
        lines.push(`last at line ${fmt(errors.lastLine)}: ${quote(errors.last)}`);
    }
  }
  return lines.slice(0, 3).join("\n");
}

function findExitCode(text: string): number | undefined {
  let found: number | undefined;
  const scan = text.length > SCAN_LIMIT ? text.slice(-SCAN_LIMIT) : text;
  EXIT_CODE.lastIndex = 0;
  for (let m = EXIT_CODE.exec(scan); m; m = EXIT_CODE.exec(scan)) found = Number(m[1]);
  return found;
}

function findErrorLines(text: string) {
  let count = 0;
  let first = "";
  let firstLine = 0;
  let last = "";
  let lastLine = 0;
  let n = 0;
  let offset = 0;
  const limit = Math.min(text.length, SCAN_LIMIT);
  while (offset < limit) {
    const nl = text.indexOf("\n", offset);
    const end = nl < 0 ? text.length : nl;
    n++;
    const line = text.slice(offset, Math.min(end, offset + 1000));
    offset = end + 1;
    if (!ERROR_LINE.test(line)) continue;
    count++;
    if (count === 1) [first, firstLine] = [line, n];
    [last, lastLine] = [line, n];
  }
  return { count, first, firstLine, last, lastLine, capped: limit < text.length };
}

function jsonShape(text: string): string | undefined {
  if (text.length > JSON_SHAPE_LIMIT) return undefined;
  const value = tryParseJson(text);
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return `JSON array of ${fmt(value.length)} items`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    const shown = keys.slice(0, 12).join(", ");
    return `JSON object with ${fmt(keys.length)} keys: ${shown}${keys.length > 12 ? `, … (+${keys.length - 12})` : ""}`;
  }
  return undefined;
}

function quote(line: string): string {
  const t = line.trim();
  return JSON.stringify(t.length > QUOTE_CHARS ? `${t.slice(0, QUOTE_CHARS)}…` : t);
}
