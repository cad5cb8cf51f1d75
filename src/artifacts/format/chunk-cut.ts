import { isAscii, isUtf8 } from "node:buffer";

/** Default raw size of one chunk of a chunked blob. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** Largest chunk: what one ranged read may have to decode. */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/**
 * Where to end a chunk of at most `max` (4 or more) bytes taken from the
 * front of `buf` (which holds more than `max` bytes). After the last newline in the final
 * quarter when there is one, so most lines live in one chunk; else at `max`,
 * moved back before a UTF-8 continuation byte (at most 3 places). Decoding the
 * chunks one by one then gives exactly the text of decoding the whole: a cut
 * before a non-continuation byte ends any sequence in progress the same way
 * the whole decode would, and a byte after 3 continuation bytes is a stray in both.
 */
export function cutPoint(buf: Buffer, max: number): number {
  const nl = buf.lastIndexOf(10, max - 1);
  if (nl >= 0 && nl + 1 >= max - Math.floor(max / 4)) return nl + 1;
  for (let cut = max; cut > max - 4 && cut > 0; cut--) {
    if (!isContinuation(buf[cut] ?? 0)) return cut;
  }
  return max;
}

/** Newlines and UTF-16 length (decoded as UTF-8, as `Buffer#toString` does) of one chunk. */
export function chunkStats(chunk: Buffer): { newlines: number; chars: number } {
  let newlines = 0;
  for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
  return { newlines, chars: utf16Length(chunk) };
}

function utf16Length(chunk: Buffer): number {
  if (isAscii(chunk)) return chunk.length;
  // Invalid UTF-8 decodes with replacement characters whose count depends on the error: let the decoder say.
  if (!isUtf8(chunk)) return chunk.toString("utf8").length;
  let units = 0;
  for (let i = 0; i < chunk.length; i++) {
    const byte = chunk[i] as number;
    if (!isContinuation(byte)) units += byte >= 0xf0 ? 2 : 1;
  }
  return units;
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}
