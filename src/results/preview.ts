import { redactSecrets } from "./redact.js";

/** Default size of a preview in characters. */
export const DEFAULT_PREVIEW_CHARS = 600;
/** Chars of each end of a long text that are redacted before the preview is cut from them. */
export const PREVIEW_REDACT_WINDOW = 64_000;

/** Rewrites text before it is shown (secret redaction). */
export type PreviewRedact = (text: string) => string;

/**
 * A head-and-tail preview of at most about `maxChars` characters: the text
 * itself when it fits, else its head and tail (cut at line ends when one is
 * near) around a `… N chars omitted …` line. Deterministic.
 *
 * Secrets are redacted BEFORE the cut (`redact`, by default the built-in
 * rules): a private key whose BEGIN falls in the omitted middle is still
 * recognised by its END, and a key cut in half cannot slip past its rule.
 * Long texts are redacted on {@link PREVIEW_REDACT_WINDOW} chars of each end
 * only, so a preview of a huge output stays cheap. Pass `(t) => t` only where
 * redaction is switched off by config.
 */
export function buildPreview(
  text: string,
  maxChars = DEFAULT_PREVIEW_CHARS,
  redact: PreviewRedact = redactSecrets,
): string {
  if (text.length <= 2 * PREVIEW_REDACT_WINDOW) return cut(redact(text), maxChars, 0);
  // A BEGIN in the head window runs to the window's end; an END in the tail window takes the key lines above it.
  const head = redact(text.slice(0, PREVIEW_REDACT_WINDOW));
  const tail = redact(text.slice(-PREVIEW_REDACT_WINDOW));
  return cut(`${head}\n${tail}`, maxChars, text.length - 2 * PREVIEW_REDACT_WINDOW - 1);
}

function cut(text: string, maxChars: number, extraOmitted: number): string {
  if (text.length <= maxChars && extraOmitted <= 0) return text;
  const half = Math.max(1, Math.floor((maxChars - 40) / 2));
  let headEnd = half;
  const nl = text.lastIndexOf("\n", half);
  if (nl > half * 0.6) headEnd = nl;
  let tailStart = text.length - half;
  const nl2 = text.indexOf("\n", tailStart);
  if (nl2 >= 0 && nl2 < tailStart + half * 0.4) tailStart = nl2 + 1;
  const omitted = tailStart - headEnd + Math.max(0, extraOmitted);
  return `${text.slice(0, headEnd)}\n… ${omitted.toLocaleString("en-US")} chars omitted …\n${text.slice(tailStart)}`;
}
