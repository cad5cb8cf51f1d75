import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gunzip as gunzipCb, gunzipSync, type ZlibOptions } from "node:zlib";
import { LedgerError } from "../../errors.js";
import {
  indexDigest,
  indexMemberBytes,
  MAX_INDEX_MEMBER_BYTES,
  parseIndexMemberAt,
  parseIndexMemberAtEnd,
  type ChunkEntry,
  type IndexGroup,
} from "./chunk-index.js";
import { formatHandle } from "./handle.js";

const gunzip = promisify(gunzipCb);

/** Where every chunk of a chunked blob lies, from its index. */
export interface ChunkLayout {
  /** Digest of the whole content (the handle's). */
  sha256: string;
  rawBytes: number;
  /** UTF-16 length of the whole content decoded as UTF-8. */
  chars: number;
  newlines: number;
  endsWithNewline: boolean;
  entries: ChunkEntry[];
  /** Per chunk: blob offset of its gzip member. */
  memberOffset: Float64Array;
  /** Per chunk: UTF-16 offset of its first code unit in the whole text. */
  charStart: Float64Array;
  /** Per chunk: newlines in all chunks before it. */
  newlinesBefore: Float64Array;
  /** Bytes read from the blob to learn the layout. */
  indexBytesRead: number;
  /** {@link indexDigest} of the index read: what the meta recorded when the blob was written. */
  indexSha256: string;
}

/** Reads `length` bytes at `position` (fewer only at the end of the file). */
export type ReadAt = (length: number, position: number) => Promise<Buffer>;

/**
 * The layout of the chunked blob of `hex` (`size` bytes), or undefined when
 * the blob does not end with an index of that content (a raw or single-member
 * blob of the older format). Throws `artifact_corrupt` when the last index
 * member names this content but the rest of the index does not add up.
 */
export async function readChunkLayout(read: ReadAt, size: number, hex: string): Promise<ChunkLayout | undefined> {
  const tailBytes = Math.min(size, MAX_INDEX_MEMBER_BYTES);
  const tail = await read(tailBytes, size - tailBytes);
  let indexBytesRead = tail.length;
  const last = parseIndexMemberAtEnd(tail);
  if (!last?.group.final || last.group.final.sha256 !== hex) return undefined;
  const groups: Array<{ group: IndexGroup; start: number }> = [
    { group: last.group, start: size - tailBytes + last.start },
  ];
  for (let at = last.group.previousIndexOffset; at !== undefined;) {
    const first = groups[0] as { start: number };
    if (at >= first.start) throw corruptIndex(hex, `index member at ${at} does not precede the one at ${first.start}`);
    const buf = await read(Math.min(MAX_INDEX_MEMBER_BYTES, first.start - at), at);
    indexBytesRead += buf.length;
    const group = parseIndexMemberAt(buf, 0);
    if (!group || group.final) throw corruptIndex(hex, `no valid index member at byte ${at}`);
    groups.unshift({ group, start: at });
    at = group.previousIndexOffset;
  }
  return layoutOf(groups, size, hex, indexBytesRead);
}

function layoutOf(
  groups: Array<{ group: IndexGroup; start: number }>,
  size: number,
  hex: string,
  indexBytesRead: number,
): ChunkLayout {
  const entries = groups.flatMap((g) => g.group.entries);
  const memberOffset = new Float64Array(entries.length);
  const charStart = new Float64Array(entries.length);
  const newlinesBefore = new Float64Array(entries.length);
  let k = 0;
  let chars = 0;
  let newlines = 0;
  let rawBytes = 0;
  let expectedOffset = 0;
  for (const { group, start } of groups) {
    if (group.firstChunk !== k || group.groupOffset !== expectedOffset)
      throw corruptIndex(hex, `index group ${group.firstChunk} at byte ${group.groupOffset} out of place`);
    let at = group.groupOffset;
    for (const e of group.entries) {
      memberOffset[k] = at;
      charStart[k] = chars;
      newlinesBefore[k] = newlines;
      at += e.compressedBytes;
      chars += e.chars;
      newlines += e.newlines;
      rawBytes += e.rawBytes;
      k++;
    }
    if (at !== start)
      throw corruptIndex(hex, `chunks of group ${group.firstChunk} end at ${at}, its index at ${start}`);
    expectedOffset = start + indexMemberBytes(group.entries.length);
  }
  const final = (groups[groups.length - 1] as { group: IndexGroup }).group.final as NonNullable<IndexGroup["final"]>;
  if (expectedOffset !== size || rawBytes !== final.rawBytes)
    throw corruptIndex(hex, `index covers ${rawBytes} bytes in ${expectedOffset} stored, blob has ${size}`);
  return {
    sha256: hex,
    rawBytes,
    chars,
    newlines,
    endsWithNewline: final.endsWithNewline,
    entries,
    memberOffset,
    charStart,
    newlinesBefore,
    indexBytesRead,
    indexSha256: indexDigest(groups.map((g) => g.group)),
  };
}

/** Decodes and checks chunk `k` from its gzip `member`; throws `artifact_corrupt` unless it matches its entry. */
async function decodeMember(layout: ChunkLayout, k: number, member: Buffer): Promise<Buffer> {
  const e = layout.entries[k] as ChunkEntry;
  let raw: Buffer;
  try {
    raw = await gunzip(member, decodeOptions(e));
  } catch (err) {
    throw corruptChunk(layout.sha256, k, `an undecodable gzip member (${(err as Error).message})`, err);
  }
  return checked(layout, k, raw);
}

/** Decodes and checks chunk `k` from its gzip `member`, synchronously (selectors read a view synchronously). */
export function decodeChunk(layout: ChunkLayout, k: number, member: Buffer): Buffer {
  const e = layout.entries[k] as ChunkEntry;
  let raw: Buffer;
  try {
    raw = gunzipSync(member, decodeOptions(e));
  } catch (err) {
    throw corruptChunk(layout.sha256, k, `an undecodable gzip member (${(err as Error).message})`, err);
  }
  return checked(layout, k, raw);
}

/** One output buffer of the chunk's size (no pieces to join), and a damaged member cannot inflate past it. */
function decodeOptions(e: ChunkEntry): ZlibOptions {
  return { chunkSize: Math.max(1024, e.rawBytes), maxOutputLength: Math.max(1, e.rawBytes) };
}

function checked(layout: ChunkLayout, k: number, raw: Buffer): Buffer {
  const e = layout.entries[k] as ChunkEntry;
  const actual = createHash("sha256").update(raw).digest();
  if (raw.length !== e.rawBytes || !actual.equals(e.sha256))
    throw corruptChunk(layout.sha256, k, `${raw.length} bytes with sha256 ${actual.toString("hex")}`);
  return raw;
}

/** Bytes a whole read asks for at once: one request per window, not per chunk (a round trip each on S3). */
const WHOLE_READ_WINDOW_BYTES = 8 * 1024 * 1024;

/**
 * Yields every chunk of the blob in order, each checked against its index
 * entry, and checks the whole content against the handle at the end. Reads
 * in windows of several chunks.
 */
export async function* readAllChunks(read: ReadAt, layout: ChunkLayout): AsyncGenerator<Buffer> {
  const whole = createHash("sha256");
  let window: Buffer = Buffer.alloc(0);
  let windowStart = 0;
  for (let k = 0; k < layout.entries.length; k++) {
    const e = layout.entries[k] as ChunkEntry;
    const at = layout.memberOffset[k] as number;
    if (at < windowStart || at + e.compressedBytes > windowStart + window.length) {
      windowStart = at;
      window = await read(Math.max(e.compressedBytes, WHOLE_READ_WINDOW_BYTES), at);
    }
    const member = window.subarray(at - windowStart, at - windowStart + e.compressedBytes);
    const raw = await decodeMember(layout, k, member);
    whole.update(raw);
    yield raw;
  }
  const actual = whole.digest("hex");
  if (actual !== layout.sha256)
    throw new LedgerError(
      "artifact_corrupt",
      `Expected the content of ${formatHandle(layout.sha256)} to hash to its handle, got sha256 ${actual}; nothing served`,
    );
}

function corruptChunk(hex: string, k: number, got: string, cause?: unknown): LedgerError {
  return new LedgerError(
    "artifact_corrupt",
    `Expected chunk ${k} of ${formatHandle(hex)} to match its index entry, got ${got}; nothing served`,
    { cause },
  );
}

function corruptIndex(hex: string, why: string): LedgerError {
  return new LedgerError("artifact_corrupt", `Expected a consistent chunk index in ${formatHandle(hex)}, got ${why}`);
}
