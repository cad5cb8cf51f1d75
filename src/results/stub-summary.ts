/** Options of {@link summarizeForStub}. */
export interface StubSummaryOptions {
  label?: string;
  totalChars: number;
}

const ERROR_LINE = /\b(error|fatal|exception|failed|traceback|panic)\b/i;

/**
 * A deterministic 1-3 line summary of an output: size, lines, format; exit
 * code and first error lines for command output; top-level keys for JSON.
 */
export function summarizeForStub(text: string, options: StubSummaryOptions): string[] {
  const lines = countLines(text);
  const format = detectFormat(text);
  const who = options.label ? `${options.label} output` : "output";
  const out = [`summary: ${who}, ${options.totalChars.toLocaleString("en-US")} chars, ${lines.toLocaleString("en-US")} lines, ${format}`];
  if (format === "json") {
    const keys = topLevelKeys(text);
    if (keys) out.push(`keys: ${keys}`);
  } else {
    const exit = /exit(?:ed with)?(?: code)?[:= ]+(-?\d+)/i.exec(text.slice(-2_000));
    const errors: string[] = [];
    for (const line of text.split("\n", 5_000)) {
      if (ERROR_LINE.test(line)) errors.push(line.trim().slice(0, 160));
      if (errors.length === 2) break;
    }
    const parts = [exit ? `exit code ${exit[1]}` : "", errors.length ? `errors: ${errors.join(" | ")}` : ""].filter(Boolean);
    if (parts.length) out.push(parts.join("; "));
  }
  return out;
}

function countLines(text: string): number {
  let n = text.length > 0 ? 1 : 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** json | html | xml | text (cheap, by the first non-blank chars). */
export function detectFormat(text: string): string {
  const head = text.slice(0, 512).trimStart();
  if (head.startsWith("{") || head.startsWith("[")) return "json";
  if (/^<!doctype html|^<html/i.test(head)) return "html";
  if (head.startsWith("<")) return "xml";
  return "text";
}

function topLevelKeys(text: string): string | undefined {
  if (text.length > 5_000_000) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (Array.isArray(value)) return `array of ${value.length}`;
    if (value && typeof value === "object") return Object.keys(value).slice(0, 12).join(", ");
  } catch {
    return undefined;
  }
  return undefined;
}
