import { createHash, randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzip as gzipCb } from "node:zlib";
import { FILE_MODE, TEMP_PREFIX } from "../../fs/atomic-write.js";
import { chunkStats, cutPoint } from "./chunk-cut.js";
import { encodeIndexMember, INDEX_GROUP_CHUNKS, indexMemberBytes, type ChunkEntry } from "./chunk-index.js";
import type { Compression } from "./gzip-codec.js";

const gzip = promisify(gzipCb);

/** Content smaller than this is stored as is: gzip cannot win much there. */
export const MIN_GZIP_BYTES = 256;
/** zlib's output buffer when compressing a chunk. */
const GZIP_OUT_BYTES = 256 * 1024;
/** Chunks compressed at once (on libuv's pool) while the next one is hashed. */
const IN_FLIGHT = 2;

/** Content to write, in pieces of any size. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Options for {@link writeBlob}. */
export interface BlobWriterOptions {
  /** Folder of the temp file (inside the store). */
  dir: string;
  /** gzip level 1-9. */
  level: number;
  /** Raw bytes per chunk. */
  chunkBytes: number;
  /** SHA-256 (hex) of the content when the caller already has it: the whole content is then not hashed again. */
  knownSha256?: string;
}

/** A blob written to a temp file, fsynced, not yet in place. */
export interface WrittenBlob {
  /** The temp file; the caller links it into place and removes it. */
  temp: string;
  sha256: string;
  bytes: number;
  lines: number;
  storedBytes: number;
  compression: Compression;
  /** `indexDigest` of the blob's index; undefined for a raw blob (no index). */
  indexSha256?: string;
}

/**
 * Writes `source` as a blob in one pass: each chunk is hashed (whole content
 * and chunk), counted and gzipped as it arrives, then appended to a temp file
 * (0600) followed by the index; the file is fsynced. Content that fits one
 * chunk and does not shrink is written raw. At most {@link IN_FLIGHT} + 1
 * chunks are held in memory, never the whole content. The temp file is removed on error.
 */
export async function writeBlob(source: ByteSource, options: BlobWriterOptions): Promise<WrittenBlob> {
  const temp = path.join(options.dir, `${TEMP_PREFIX}stash-${process.pid}-${randomBytes(6).toString("hex")}`);
  const file = await fsp.open(temp, "wx", FILE_MODE);
  try {
    const result = await writeChunks(source, file, options);
    await file.chmod(FILE_MODE);
    await file.sync();
    await file.close();
    return { temp, ...result };
  } catch (err) {
    await file.close().catch(() => undefined);
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}

interface Pending {
  chunk: Buffer;
  entry: Promise<ChunkEntry & { member: Buffer }>;
}

interface Settled {
  chunk: Buffer;
  member: Buffer;
  entry: ChunkEntry;
}

async function writeChunks(
  source: ByteSource,
  file: fsp.FileHandle,
  options: BlobWriterOptions,
): Promise<Omit<WrittenBlob, "temp">> {
  const whole = options.knownSha256 === undefined ? createHash("sha256") : undefined;
  let bytes = 0;
  let newlines = 0;
  let lastByte = -1;
  let offset = 0;
  let placed = 0;
  let group: ChunkEntry[] = [];
  let groupFirst = 0;
  let groupOffset = 0;
  let previousIndexOffset: number | undefined;
  const queue: Pending[] = [];
  let held: Settled | undefined;

  const append = async (data: Buffer): Promise<void> => {
    await file.write(data, 0, data.length, offset);
    offset += data.length;
  };
  const index = createHash("sha256");
  const appendIndex = async (member: Buffer): Promise<void> => {
    index.update(member);
    await append(member);
  };
  const place = async ({ member, entry }: Settled): Promise<void> => {
    await append(member);
    group.push(entry);
    placed++;
    if (group.length < INDEX_GROUP_CHUNKS) return;
    const at = offset;
    await appendIndex(encodeIndexMember({ firstChunk: groupFirst, groupOffset, previousIndexOffset, entries: group }));
    previousIndexOffset = at;
    groupFirst = placed;
    groupOffset = offset;
    group = [];
  };
  // The first chunk waits until a second one shows whether the blob is chunked or may stay raw.
  const settle = async (p: Pending): Promise<void> => {
    const { member, ...entry } = await p.entry;
    const done: Settled = { chunk: p.chunk, member, entry };
    if (placed === 0 && !held) {
      held = done;
      return;
    }
    if (held) await place(held);
    held = undefined;
    await place(done);
  };
  const take = (chunk: Buffer): void => {
    const sha256 = createHash("sha256").update(chunk).digest();
    whole?.update(chunk);
    const stats = chunkStats(chunk);
    bytes += chunk.length;
    newlines += stats.newlines;
    lastByte = chunk[chunk.length - 1] ?? lastByte;
    // zlib's default 16 KiB output buffer hands each piece back to the main thread: a third of the time.
    const entry = gzip(chunk, { level: options.level, chunkSize: GZIP_OUT_BYTES }).then((member) => ({
      compressedBytes: member.length,
      rawBytes: chunk.length,
      ...stats,
      sha256,
      member,
    }));
    // Rejections are awaited in order by settle; this keeps an early one from being reported as unhandled.
    entry.catch(() => undefined);
    queue.push({ chunk, entry });
  };

  for await (const chunk of chunksOf(source, options.chunkBytes)) {
    take(chunk);
    while (queue.length > IN_FLIGHT) await settle(queue.shift() as Pending);
  }
  while (queue.length > 0) await settle(queue.shift() as Pending);

  const sha256 = whole?.digest("hex") ?? (options.knownSha256 as string);
  const lines = bytes === 0 ? 0 : lastByte === 10 ? newlines : newlines + 1;
  if (bytes === 0) return { sha256, bytes, lines, storedBytes: 0, compression: "none" };
  if (held) {
    const { chunk, member } = held;
    if (chunk.length < MIN_GZIP_BYTES || member.length + indexMemberBytes(1) >= chunk.length) {
      await append(chunk);
      return { sha256, bytes, lines, storedBytes: offset, compression: "none" };
    }
    await place(held);
  }
  await appendIndex(
    encodeIndexMember({
      firstChunk: groupFirst,
      groupOffset,
      previousIndexOffset,
      entries: group,
      final: { rawBytes: bytes, sha256, endsWithNewline: lastByte === 10 },
    }),
  );
  return { sha256, bytes, lines, storedBytes: offset, compression: "gzip", indexSha256: index.digest("hex") };
}

/**
 * Re-cuts `source` into chunks of at most `max` bytes ending where
 * {@link cutPoint} says. A piece that is already big enough is cut without copying.
 */
async function* chunksOf(source: ByteSource, max: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const piece of source) {
    if (piece.byteLength === 0) continue;
    parts.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    size += piece.byteLength;
    if (size <= max) continue;
    let buf = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
    while (buf.length > max) {
      const cut = cutPoint(buf, max);
      yield buf.subarray(0, cut);
      buf = buf.subarray(cut);
    }
    parts = buf.length > 0 ? [buf] : [];
    size = buf.length;
  }
  if (size > 0) yield parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
}
