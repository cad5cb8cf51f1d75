import { textOf } from "../host/messages.js";
import { matchHostCopy } from "../results/host-copy.js";
import { readHostSpillFile, type ReadSpillOptions } from "./spill-file.js";

/** The host hands tool-result middleware at most this many chars of a text block (2026.8.x-9.x). */
export const MIDDLEWARE_TEXT_CAP = 100_000;

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
  options: ReadSpillOptions & { textCap?: number } = {},
): Promise<BestOriginal | undefined> {
  const text = textOf(result);
  const details = (result as { details?: unknown } | null)?.details;
  const d = details && typeof details === "object" ? (details as Record<string, unknown>) : {};
  const body = bodyOf(text);
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
    return { text: d.aggregated, source: "aggregated" };
  if (text.length === 0) return undefined;
  const cap = options.textCap;
  return cap !== undefined && text.length === cap
    ? {
        text,
        source: textSource,
        partial: `the host hands plugins at most ${cap.toLocaleString("en-US")} chars of a tool result; the rest was not captured`,
      }
    : { text, source: textSource };
}
