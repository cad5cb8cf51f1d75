/** Default size of a preview in characters. */
export const DEFAULT_PREVIEW_CHARS = 600;

/**
 * A head-and-tail preview of at most about `maxChars` characters: the text
 * itself when it fits, else its head and tail (cut at line ends when one is
 * near) around a `… N chars omitted …` line. Deterministic.
 */
export function buildPreview(text: string, maxChars = DEFAULT_PREVIEW_CHARS): string {
  if (text.length <= maxChars) return text;
  const half = Math.max(1, Math.floor((maxChars - 40) / 2));
  let headEnd = half;
  const nl = text.lastIndexOf("\n", half);
  if (nl > half * 0.6) headEnd = nl;
  let tailStart = text.length - half;
  const nl2 = text.indexOf("\n", tailStart);
  if (nl2 >= 0 && nl2 < tailStart + half * 0.4) tailStart = nl2 + 1;
  const omitted = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n… ${omitted.toLocaleString("en-US")} chars omitted …\n${text.slice(tailStart)}`;
}
