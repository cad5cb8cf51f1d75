/**
 * JSONL files as lines of bytes, for rewrites that must keep every byte they do not change: no decoding,
 * no normalising of line ends or of the final newline.
 */

const NEWLINE = Buffer.from("\n");

/**
 * The lines of `raw`, split at every `\n` with the newlines removed. `joinByteLines(splitByteLines(raw))` is
 * `raw` byte for byte: a final newline leaves an empty last line, an empty file one empty line.
 */
export function splitByteLines(raw: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let nl = raw.indexOf(0x0a); nl >= 0; nl = raw.indexOf(0x0a, start)) {
    out.push(raw.subarray(start, nl));
    start = nl + 1;
  }
  out.push(raw.subarray(start));
  return out;
}

/** `lines` with a `\n` between each two: the inverse of {@link splitByteLines}. */
export function joinByteLines(lines: readonly Buffer[]): Buffer {
  return Buffer.concat(lines.flatMap((line, i) => (i > 0 ? [NEWLINE, line] : [line])));
}
