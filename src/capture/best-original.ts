import { textOf } from "../host/messages.js";
import { EXEC_RETENTION_NOTE, execRetention, matchHostCopy } from "../results/host-copy.js";
import { readHostSpillFile, type ReadSpillOptions } from "./spill-file.js";

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
  options: ReadSpillOptions & { toolName?: string } = {},
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
  if (typeof d.fullOutputPath === "string" && body.length > 0) {
    const spill = await readHostSpillFile(d.fullOutputPath, options);
    // A file named by the result is taken only when it holds everything the result shows (head and tail):
    // a file that merely starts the same way is another output.
    if ("text" in spill && (spill.text.includes(body) || matchHostCopy(text, spill.text) === "exact"))
      return { text: spill.text, source: "spill-file" };
  }
  if (typeof d.aggregated === "string" && d.aggregated.length > text.length && contains(d.aggregated))
    return withRetention({ text: d.aggregated, source: "aggregated" }, noted, true);
  if (text.length === 0) return undefined;
  return withRetention({ text, source: textSource }, noted, options.toolName === "exec");
}

/** Marks an output `exec` itself cut at its retention cap as partial, saying which part is kept. */
function withRetention(original: BestOriginal, noted: boolean, exec: boolean): BestOriginal {
  const partial = execRetention(original.text, { noted, exec });
  return partial ? { ...original, partial } : original;
}
