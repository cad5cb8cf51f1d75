/**
 * The index of a chunked blob, carried inside the blob itself. A chunked blob
 * is a sequence of independently gzipped chunks followed by index members:
 * gzip members with an empty payload whose FEXTRA field (subfield `CL`) holds
 * the index. Concatenated gzip members are valid gzip, and an empty member
 * adds nothing to the output, so `zcat blob` still prints the content. The
 * index lives in the same file as the chunks, so blob and index appear
 * together, atomically, and never disagree by a crash.
 *
 * An FEXTRA field holds at most 65,535 bytes, so the index is split in groups
 * of {@link INDEX_GROUP_CHUNKS} chunks: an index member follows every full
 * group and points back to the one before; the last member also carries the
 * SHA-256 of the whole content (the handle), which binds the index to its
 * handle: a raw blob that happens to contain a valid index of other content
 * is never read through it.
 */
import { createHash } from "node:crypto";

/** Chunks described by one index member (1,024 x 48 bytes fits the 65,535-byte FEXTRA field). */
export const INDEX_GROUP_CHUNKS = 1024;

const MAGIC = "CLI1";
const HEADER_BYTES = 72;
const ENTRY_BYTES = 48;
const DIGEST_BYTES = 16;
const NONE = 0xffffffff;
/** gzip member header with FLG.FEXTRA, mtime 0, XFL 0, OS unknown; then XLEN, `CL`, LEN. */
const MEMBER_HEAD = Buffer.from([0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff]);
/** An empty final deflate block, then CRC32 0 and ISIZE 0. */
const MEMBER_TAIL = Buffer.from([0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
const FRAME_BYTES = MEMBER_HEAD.length + 2 + 4 + MEMBER_TAIL.length;

/** Largest index member on disk (a full group). */
export const MAX_INDEX_MEMBER_BYTES = FRAME_BYTES + HEADER_BYTES + INDEX_GROUP_CHUNKS * ENTRY_BYTES + DIGEST_BYTES + 4;

/** What the index records about one chunk. */
export interface ChunkEntry {
  /** Bytes of the chunk's gzip member on disk. */
  compressedBytes: number;
  /** Bytes of the chunk's content. */
  rawBytes: number;
  /** `\n` bytes in the chunk. */
  newlines: number;
  /** UTF-16 length of the chunk decoded as UTF-8 (chunks are cut where decoding in pieces equals decoding whole). */
  chars: number;
  /** SHA-256 of the chunk's content, 32 bytes. */
  sha256: Buffer;
}

/** One index member, as written or parsed. */
export interface IndexGroup {
  /** Number of the group's first chunk in the blob. */
  firstChunk: number;
  /** Blob offset of the group's first chunk member. */
  groupOffset: number;
  /** Blob offset of the previous index member, or undefined for the first. */
  previousIndexOffset: number | undefined;
  entries: ChunkEntry[];
  /** Set on the last member only: the content's size, SHA-256 (hex) and whether its last byte is `\n`. */
  final?: { rawBytes: number; sha256: string; endsWithNewline: boolean };
}

/** Encodes one index member (a complete, empty gzip member carrying `group`). */
export function encodeIndexMember(group: IndexGroup): Buffer {
  const dataBytes = HEADER_BYTES + group.entries.length * ENTRY_BYTES + DIGEST_BYTES + 4;
  const data = Buffer.alloc(dataBytes);
  data.write(MAGIC, 0, "latin1");
  data.writeUInt8(group.final ? 1 : 0, 4);
  data.writeUInt8(group.final?.endsWithNewline ? 1 : 0, 5);
  data.writeUInt32LE(group.firstChunk, 8);
  data.writeUInt32LE(group.entries.length, 12);
  writeU64(data, 16, group.groupOffset);
  writeU64(data, 24, group.previousIndexOffset);
  writeU64(data, 32, group.final?.rawBytes ?? 0);
  if (group.final) Buffer.from(group.final.sha256, "hex").copy(data, 40);
  let at = HEADER_BYTES;
  for (const e of group.entries) {
    data.writeUInt32LE(e.compressedBytes, at);
    data.writeUInt32LE(e.rawBytes, at + 4);
    data.writeUInt32LE(e.newlines, at + 8);
    data.writeUInt32LE(e.chars, at + 12);
    e.sha256.copy(data, at + 16);
    at += ENTRY_BYTES;
  }
  createHash("sha256").update(data.subarray(0, at)).digest().copy(data, at, 0, DIGEST_BYTES);
  data.writeUInt32LE(dataBytes, at + DIGEST_BYTES);
  const lengths = Buffer.alloc(6);
  lengths.writeUInt16LE(dataBytes + 4, 0);
  lengths.write("CL", 2, "latin1");
  lengths.writeUInt16LE(dataBytes, 4);
  return Buffer.concat([MEMBER_HEAD, lengths, data, MEMBER_TAIL]);
}

/**
 * Parses the index member that ends at the end of `tail` (the last bytes of a
 * blob). Returns undefined when `tail` does not end with a well-formed index
 * member whose digest matches; `start` is the member's offset within `tail`.
 */
export function parseIndexMemberAtEnd(tail: Buffer): { group: IndexGroup; start: number } | undefined {
  if (tail.length < FRAME_BYTES + HEADER_BYTES + DIGEST_BYTES + 4) return undefined;
  if (!tail.subarray(tail.length - MEMBER_TAIL.length).equals(MEMBER_TAIL)) return undefined;
  const dataBytes = tail.readUInt32LE(tail.length - MEMBER_TAIL.length - 4);
  const start = tail.length - FRAME_BYTES - dataBytes;
  if (start < 0) return undefined;
  const group = parseIndexMemberAt(tail, start);
  return group ? { group, start } : undefined;
}

/** Parses the index member that starts at `start` in `buf`; undefined when it is not a well-formed one. */
export function parseIndexMemberAt(buf: Buffer, start: number): IndexGroup | undefined {
  if (start < 0 || start + FRAME_BYTES > buf.length) return undefined;
  if (!buf.subarray(start, start + MEMBER_HEAD.length).equals(MEMBER_HEAD)) return undefined;
  const xlen = buf.readUInt16LE(start + 10);
  const dataBytes = buf.readUInt16LE(start + 14);
  if (buf.toString("latin1", start + 12, start + 14) !== "CL" || xlen !== dataBytes + 4) return undefined;
  const dataStart = start + 16;
  if (dataStart + dataBytes + MEMBER_TAIL.length > buf.length) return undefined;
  const data = buf.subarray(dataStart, dataStart + dataBytes);
  if (!buf.subarray(dataStart + dataBytes, dataStart + dataBytes + MEMBER_TAIL.length).equals(MEMBER_TAIL))
    return undefined;
  if (dataBytes < HEADER_BYTES + DIGEST_BYTES + 4 || data.toString("latin1", 0, 4) !== MAGIC) return undefined;
  const count = data.readUInt32LE(12);
  const digestAt = HEADER_BYTES + count * ENTRY_BYTES;
  if (digestAt + DIGEST_BYTES + 4 !== dataBytes || data.readUInt32LE(digestAt + DIGEST_BYTES) !== dataBytes)
    return undefined;
  const digest = createHash("sha256").update(data.subarray(0, digestAt)).digest().subarray(0, DIGEST_BYTES);
  if (!digest.equals(data.subarray(digestAt, digestAt + DIGEST_BYTES))) return undefined;
  const entries: ChunkEntry[] = [];
  for (let at = HEADER_BYTES; at < digestAt; at += ENTRY_BYTES) {
    entries.push({
      compressedBytes: data.readUInt32LE(at),
      rawBytes: data.readUInt32LE(at + 4),
      newlines: data.readUInt32LE(at + 8),
      chars: data.readUInt32LE(at + 12),
      sha256: Buffer.from(data.subarray(at + 16, at + 48)),
    });
  }
  const group: IndexGroup = {
    firstChunk: data.readUInt32LE(8),
    groupOffset: readU64(data, 16) ?? 0,
    previousIndexOffset: readU64(data, 24),
    entries,
  };
  if (data.readUInt8(4) === 1) {
    group.final = {
      rawBytes: readU64(data, 32) ?? 0,
      sha256: data.toString("hex", 40, 72),
      endsWithNewline: data.readUInt8(5) === 1,
    };
  }
  return group;
}

/**
 * The digest that binds a blob's index to its handle: SHA-256 (hex) of every
 * index member, in blob order, as {@link encodeIndexMember} writes it. The
 * meta records it at write time; a range read whose index hashes otherwise is
 * refused, since its chunks are checked only against that index.
 */
export function indexDigest(groups: readonly IndexGroup[]): string {
  const hash = createHash("sha256");
  for (const group of groups) hash.update(encodeIndexMember(group));
  return hash.digest("hex");
}

/** Bytes of the index member that describes `count` chunks. */
export function indexMemberBytes(count: number): number {
  return FRAME_BYTES + HEADER_BYTES + count * ENTRY_BYTES + DIGEST_BYTES + 4;
}

// Offsets are below 2^53; an absent one is written as all ones.
function writeU64(buf: Buffer, at: number, value: number | undefined): void {
  if (value === undefined) {
    buf.writeUInt32LE(NONE, at);
    buf.writeUInt32LE(NONE, at + 4);
    return;
  }
  buf.writeUInt32LE(value % 2 ** 32, at);
  buf.writeUInt32LE(Math.floor(value / 2 ** 32), at + 4);
}

function readU64(buf: Buffer, at: number): number | undefined {
  const lo = buf.readUInt32LE(at);
  const hi = buf.readUInt32LE(at + 4);
  if (lo === NONE && hi === NONE) return undefined;
  return hi * 2 ** 32 + lo;
}
