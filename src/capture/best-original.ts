import { textOf } from "../host/messages.js";
import { EXEC_RETENTION_NOTE, matchHostCopy } from "../results/host-copy.js";
import { readHostSpillFile, type ReadSpillOptions } from "./spill-file.js";

/** The most `exec` keeps of one output from 2026.6.11 on (`DEFAULT_MAX_OUTPUT`, clamped to 200,000). */
export const EXEC_MAX_OUTPUT_CHARS = 200_000;

/** The fullest text of one tool result that is certainly this result's. */
export interface BestOriginal {
  text: string;
  /** `spill-file`, `aggregated`, or the given source of the result text. */
  source: string;
  /** Why the text may not be the whole output, when that is known. */
  partial?: string;
}

// Footers the host's shell tools append to the text they show (their full output is in the spill file).
const SPILL_FOOTERS: readonly RegExp[] = [
  /\n\n\[Showing [^\]\n]*Full output: [^\]\n]*\]$/,
  /\n\n\[Output truncated\. Full output: [^\]\n]*\]$/,
];

function bodyOf(text: string): string {
  for (const footer of SPILL_FOOTERS) {
    const m = footer.exec(text);
    if (m) return text.slice(0, m.index);
  }
  return text;
}

/**
 * Picks the fullest original of one tool result from what the host left on
 * it: the host's own exec spill file (`details.fullOutputPath`, read only when
 * it is the host's, see {@link readHostSpillFile}), `details.aggregated`
 * (2026.4.24 exec), else the result text. A longer source is taken only when
 * it contains the result text, so it is this call's output.
 */
export async function bestOriginal(
  result: unknown,
  textSource: string,
  options: ReadSpillOptions = {},
): Promise<BestOriginal | undefined> {
  const text = textOf(result);
  const details = (result as { details?: unknown } | null)?.details;
  const d = details && typeof details === "object" ? (details as Record<string, unknown>) : {};
  // The retention note leads the text the tool returns, not its `details.aggregated`.
  const noted = text.startsWith(EXEC_RETENTION_NOTE);
  const body = bodyOf(noted ? text.slice(EXEC_RETENTION_NOTE.length) : text);
  // The host may have cut the text (head, tail, notice in a form we know or not) or shown a tail with a footer.
  const head = body.slice(0, Math.min(1_024, Math.ceil(body.length / 2)));
  const contains = (candidate: string): boolean =>
    candidate.length >= head.length &&
    (matchHostCopy(text, candidate) !== "none" ||
      candidate.includes(body) ||
      (head.length > 0 && candidate.startsWith(head)));
  if (typeof d.fullOutputPath === "string") {
    const spill = await readHostSpillFile(d.fullOutputPath, options);
    if ("text" in spill && contains(spill.text)) return { text: spill.text, source: "spill-file" };
  }
  if (typeof d.aggregated === "string" && d.aggregated.length > text.length && contains(d.aggregated))
    return withRetention({ text: d.aggregated, source: "aggregated" }, noted);
  if (text.length === 0) return undefined;
  return withRetention({ text, source: textSource }, noted);
}

/**
 * Marks an output the tool itself cut at its retention cap as partial, saying which part is kept: 2026.8.2 and
 * 2026.9.6 say so with a note; earlier lines keep the last 200,000 chars silently, so an output of that size (less
 * the final newline exec trims) may have lost its head.
 */
function withRetention(original: BestOriginal, noted: boolean): BestOriginal {
  const cap = EXEC_MAX_OUTPUT_CHARS.toLocaleString("en-US");
  if (noted || original.text.startsWith(EXEC_RETENTION_NOTE))
    return {
      ...original,
      partial: `exec kept only the last ${cap} chars of this output (the host's retention cap); the earlier output was discarded before any plugin saw it`,
    };
  if (original.source === "aggregated" && original.text.length >= EXEC_MAX_OUTPUT_CHARS - 1)
    return {
      ...original,
      partial: `exec keeps at most the last ${cap} chars of an output and this one reached that cap: earlier output may have been discarded before any plugin saw it`,
    };
  return original;
}
