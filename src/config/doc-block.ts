/** Markers around the generated config reference in Markdown docs. */
const BLOCK_START = "<!-- config-reference:start -->";
const BLOCK_END = "<!-- config-reference:end -->";

/** Replaces the marked block of `text` with `body` (unchanged when there are no markers). */
export function replaceBlock(text: string, body: string): string {
  const start = text.indexOf(BLOCK_START);
  const end = text.indexOf(BLOCK_END);
  if (start < 0 || end < start) return text;
  return `${text.slice(0, start + BLOCK_START.length)}\n${body}\n${text.slice(end)}`;
}

/** The current content of the marked block, or undefined. */
export function readBlock(text: string): string | undefined {
  const start = text.indexOf(BLOCK_START);
  const end = text.indexOf(BLOCK_END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + BLOCK_START.length, end).trim();
}
