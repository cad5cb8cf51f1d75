import { tryParseJson } from "../json.js";

/** Formats a tool output can be detected as. */
export type OutputFormat = "json" | "html" | "xml" | "pdf-text" | "log" | "text";

/** Formats counted as structured by the offload rule. */
export const STRUCTURED_FORMATS: ReadonlySet<OutputFormat> = new Set(["json", "html", "xml", "pdf-text"]);

/** JSON bigger than this is recognised by its shape only: stubs are built inside assemble, which must stay fast. */
const FULL_PARSE_LIMIT = 512_000;

const LOG_LINE =
  /^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[\s:]|[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2})/;

/**
 * Detects the format of a tool output, deterministically and cheaply:
 * JSON by a full parse (shape only above 512 KB), HTML and XML by their
 * openings, PDF text by form feeds or a `pdf` tool name, a log when at least
 * 30% of the first 50 non-empty lines start with a timestamp or level.
 */
export function detectFormat(text: string, hint: { toolName?: string } = {}): OutputFormat {
  const head = text.slice(0, 2048).trimStart();
  const first = head[0];
  if (first === "{" || first === "[") {
    const tail = text.trimEnd().slice(-1);
    if ((first === "{" && tail === "}") || (first === "[" && tail === "]")) {
      if (text.length > FULL_PARSE_LIMIT || isJson(text)) return "json";
    }
  }
  const lower = head.slice(0, 512).toLowerCase();
  if (
    lower.startsWith("<!doctype html") ||
    lower.startsWith("<html") ||
    /^<(head|body|div|table|p|span|ul|section|article)[\s>]/.test(lower)
  )
    return "html";
  if (lower.startsWith("<?xml") || (/^<[a-z_][\w.:-]*[\s>/]/i.test(head) && text.trimEnd().endsWith(">"))) return "xml";
  if (/pdf/i.test(hint.toolName ?? "") || text.slice(0, 200_000).includes("\f") || head.startsWith("%PDF"))
    return "pdf-text";
  if (looksLikeLog(text)) return "log";
  return "text";
}

function isJson(text: string): boolean {
  return tryParseJson(text) !== undefined;
}

function looksLikeLog(text: string): boolean {
  let seen = 0;
  let hits = 0;
  let offset = 0;
  while (seen < 50 && offset < text.length) {
    const nl = text.indexOf("\n", offset);
    const line = text.slice(offset, nl < 0 ? text.length : nl);
    offset = nl < 0 ? text.length : nl + 1;
    if (line.trim() === "") continue;
    seen++;
    if (LOG_LINE.test(line)) hits++;
  }
  return seen >= 3 && hits / seen >= 0.3;
}
