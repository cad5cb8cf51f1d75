/**
 * Is this tool-result text the host's copy of that original?
 *
 * The host keeps a head (and, when the tail looks like an error or a summary,
 * a tail after its middle-omission marker) and appends a notice with the exact
 * number of characters it left out (`truncateToolResultText` and
 * `appendBoundedTruncationSuffix` in `dist/tool-result-truncation-*`, the same
 * on 2026.4.24-2026.9.6): omitted = original length − kept length. A copy is
 * verified when its head is a prefix of the original, its tail lies after the
 * head, and the omitted count adds up: a wrong link would need another output
 * of the same session, call id and length with the same head.
 */

/** The host's marker between a kept head and a kept tail. */
export const MIDDLE_OMISSION_MARKER = "\n\n⚠️ [... middle content omitted — showing head and tail ...]\n\n";

// The host's truncation notices (live truncation, compact recovery, compaction), at the very end.
const NOTICES: readonly RegExp[] = [
  /\[\.\.\. (\d+) more characters truncated; rerun with narrower args if needed\]$/,
  /\[\.\.\. (\d+) chars truncated; narrow args\]$/,
  /\n\n\[\.\.\. (\d+) more characters truncated\]$/,
  // 2026.4.24's transcript copy of an exec result: the notice right after the kept head.
  /\[\.\.\. (\d+) more characters truncated\]$/,
];

/**
 * What `exec` puts before what it kept of an output over its retention cap (2026.8.2 and 2026.9.6,
 * `EXEC_RETENTION_CAP_NOTE` in `bash-tools.exec-output-*`), in the tool's text but not in its
 * `details.aggregated`: the head of that output is gone for good.
 */
export const EXEC_RETENTION_NOTE = "[earlier output was discarded at the retention cap and cannot be recovered]\n\n";

/** The most `exec` keeps of one output on every line (`DEFAULT_MAX_OUTPUT`, clamped to 200,000). */
const EXEC_MAX_OUTPUT_CHARS = 200_000;

/**
 * What `exec`'s retention cap left out of an output, or undefined when it did not bite. 2026.8.2 and
 * 2026.9.6 say so with a note before the text (`noted`); earlier lines keep the last 200,000 chars
 * silently, so an exec output of that size (less the final newline exec trims) may have lost its head.
 */
export function execRetention(text: string, options: { noted?: boolean; exec: boolean }): string | undefined {
  const cap = EXEC_MAX_OUTPUT_CHARS.toLocaleString("en-US");
  if (options.noted || text.startsWith(EXEC_RETENTION_NOTE))
    return `exec kept only the last ${cap} chars of this output (the host's retention cap); the earlier output was discarded before any plugin saw it`;
  if (options.exec && text.length >= EXEC_MAX_OUTPUT_CHARS - 1)
    return `exec keeps at most the last ${cap} chars of an output and this one reached that cap: earlier output may have been discarded before any plugin saw it`;
  return undefined;
}

/** A host copy taken apart. */
export interface HostCopyParts {
  head: string;
  /** Kept tail, when the host showed head and tail. */
  tail?: string;
  /** Characters the host says it left out; undefined when there is no notice (an untruncated copy). */
  omitted?: number;
  /** Length of what the host kept of the original (head, marker and tail). */
  keptChars: number;
}

/** Splits a host copy into head, optional tail and the omitted count of its notice. */
export function parseHostCopy(text: string): HostCopyParts {
  for (const notice of NOTICES) {
    const m = notice.exec(text);
    if (!m) continue;
    const kept = text.slice(0, m.index);
    const omitted = Number(m[1]);
    const cut = kept.indexOf(MIDDLE_OMISSION_MARKER);
    if (cut < 0) return { head: kept, omitted, keptChars: kept.length };
    return {
      head: kept.slice(0, cut),
      tail: kept.slice(cut + MIDDLE_OMISSION_MARKER.length),
      omitted,
      keptChars: kept.length,
    };
  }
  return { head: text, keptChars: text.length };
}

/** How a host copy relates to a candidate original. */
export type HostCopyMatch =
  /** The copy is the original, or the host's truncation of exactly this original. */
  | "exact"
  /** Head and tail are in the original, but the host truncated a different-length text (e.g. a prefix of it). */
  | "contained"
  | "none";

/**
 * Compares the host's copy with a candidate original. `exact` is safe to link
 * by call id alone; `contained` only when the link is already certain (the same
 * message's spill file or `details.aggregated`).
 */
export function matchHostCopy(hostText: string, original: string): HostCopyMatch {
  if (hostText === original) return "exact";
  // The host truncated the tool's text, which is the captured output behind exec's retention note.
  if (hostText.startsWith(EXEC_RETENTION_NOTE) && !original.startsWith(EXEC_RETENTION_NOTE))
    return matchHostCopy(hostText, EXEC_RETENTION_NOTE + original);
  const parts = parseHostCopy(hostText);
  if (parts.omitted === undefined) {
    // No notice: an untruncated copy must equal the original; a bare prefix is at most contained.
    return parts.head.length > 0 && original.length > parts.head.length && original.startsWith(parts.head)
      ? "contained"
      : "none";
  }
  if (!original.startsWith(parts.head)) return "none";
  if (parts.tail !== undefined && parts.tail.length > 0 && original.indexOf(parts.tail, parts.head.length) < 0)
    return "none";
  if (parts.head.length === 0 && !parts.tail) return "none";
  return original.length - parts.keptChars === parts.omitted ? "exact" : "contained";
}
