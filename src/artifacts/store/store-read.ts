import { LedgerError } from "../../errors.js";
import type { StoreBackend } from "../backends/backend-types.js";
import { decodeChunk, readAllChunks, readChunkLayout, type ChunkLayout, type ReadAt } from "../format/blob-reader.js";
import type { ChunkEntry } from "../format/chunk-index.js";
import { ChunkedText } from "./chunked-blob-view.js";
import { decodeBlob, looksGzipped, type Compression } from "../format/gzip-codec.js";
import { formatHandle, sha256Hex } from "../format/handle.js";
import { assertJsonSelectable } from "../selectors/json-bounded.js";
import type { Selector, Slice, SliceOptions } from "../selectors/selector-types.js";
import { selectSlice } from "../selectors/selectors.js";
import { blobKey } from "../format/store-keys.js";
import type { TextCache } from "./decoded-text-lru.js";

/** Largest text a `grep` selector reads whole (and caches) instead of chunk by chunk. */
const WHOLE_TEXT_GREP_MAX_CHARS = 16 * 1024 * 1024;
/** Compressed bytes a chunk-by-chunk `grep` fetches at once (it reads every chunk, in order). */
const GREP_FETCH_BYTES = 32 * 1024 * 1024;
/** Compressed bytes fetched in one ranged read when a selector needs several neighbouring chunks. */
const MAX_FETCH_BYTES = 8 * 1024 * 1024;

/** An open blob: a chunked one with its layout, or one of the older whole-blob formats. */
export interface OpenBlob {
  hex: string;
  size: number;
  read: ReadAt;
  /** Undefined for a raw or single-member gzip blob (read and checked whole). */
  layout: ChunkLayout | undefined;
}

/**
 * Opens the blob of `hex` in `backend` and reads its index when it has one;
 * undefined when there is no blob. `observe` gets the size of every read.
 */
export async function openBlob(
  backend: StoreBackend,
  hex: string,
  observe?: (bytes: number) => void,
): Promise<OpenBlob | undefined> {
  const key = blobKey(hex);
  const info = await backend.head(key);
  if (!info) return undefined;
  const read: ReadAt = async (length, position) => {
    const data = await backend.getRange(key, position, length);
    if (!data) throw new LedgerError("artifact_not_found", `Expected the blob of ${formatHandle(hex)}, got none`);
    observe?.(data.length);
    return data;
  };
  const layout = await readChunkLayout(read, info.size, hex);
  return { hex, size: info.size, read, layout };
}

/** The whole verified content. */
export async function readBlobBytes(blob: OpenBlob, compression: Compression | undefined): Promise<Buffer> {
  if (!blob.layout) return decodeVerified(blob.hex, await blob.read(blob.size, 0), compression);
  const parts: Buffer[] = [];
  for await (const chunk of readAllChunks(blob.read, blob.layout)) parts.push(chunk);
  return Buffer.concat(parts, blob.layout.rawBytes);
}

/** Checks the whole blob against its handle (every chunk and the whole content) without keeping it. */
export async function verifyBlob(blob: OpenBlob, compression: Compression | undefined): Promise<void> {
  if (!blob.layout) {
    decodeVerified(blob.hex, await blob.read(blob.size, 0), compression);
    return;
  }
  for await (const chunk of readAllChunks(blob.read, blob.layout)) void chunk;
}

/** Thrown inside a selection when it looks at a chunk not fetched yet; the selection is rerun once it is. */
class ChunkNeeded {
  readonly k: number;
  constructor(k: number) {
    this.k = k;
  }
}

/**
 * A selector's slice of a chunked blob, reading only the chunks it looks at
 * (a `json` selector needs the whole text: its size is checked from the index
 * first, then it is read whole, or taken from `cache`); undefined for an
 * older-format blob, or one whose index was not recorded at write time
 * (`indexSha256` undefined), which the caller reads whole and checks against
 * the handle. Throws `artifact_corrupt` when the blob's index is not the one
 * recorded: its chunks are checked only against that index, so a forged one
 * would serve forged text.
 */
export async function selectFromBlob(
  blob: OpenBlob,
  selector: Selector,
  options: SliceOptions,
  context: { indexSha256: string | undefined; cache?: TextCache },
): Promise<Slice | undefined> {
  const { indexSha256, cache } = context;
  const layout = blob.layout;
  if (!layout) return undefined;
  if (selector.kind === "json") assertJsonSelectable(layout.chars);
  // A grep reads every chunk anyway: up to this size it runs on the whole string, kept in the cache for the next
  // call (through chunks it took ~4x as long on a 10 MB log, repeated calls included). A whole read checks the
  // content against the handle, so it needs no recorded index.
  if (selector.kind === "json" || (selector.kind === "grep" && layout.chars <= WHOLE_TEXT_GREP_MAX_CHARS)) {
    let text = cache?.get(blob.hex);
    if (text === undefined) {
      const parts: string[] = [];
      for await (const chunk of readAllChunks(blob.read, layout)) parts.push(chunk.toString("utf8"));
      text = parts.join("");
      cache?.set(blob.hex, text);
    }
    return selectSlice(text, selector, options);
  }
  if (indexSha256 === undefined) return undefined;
  if (indexSha256 !== layout.indexSha256)
    throw new LedgerError(
      "artifact_corrupt",
      `Expected the chunk index of ${formatHandle(blob.hex)} to be the one recorded when it was stored, got another (sha256 ${layout.indexSha256}); nothing served`,
    );
  // Selectors read synchronously: a chunk not fetched yet stops the selection, is fetched, and the selection
  // reruns (a line or tail read needs one or two chunks; a grep fetches ahead in big ranged reads).
  const members = new Map<number, Buffer>();
  const readChunk = (k: number): Buffer => {
    const member = members.get(k);
    if (!member) throw new ChunkNeeded(k);
    return decodeChunk(layout, k, member);
  };
  const ahead = selector.kind === "grep" ? GREP_FETCH_BYTES : 0;
  for (let rounds = 0; rounds <= layout.entries.length; rounds++) {
    try {
      return selectSlice(new ChunkedText(layout, readChunk, { cache }), selector, options);
    } catch (err) {
      if (!(err instanceof ChunkNeeded)) throw err;
      await fetchMembers(blob, layout, err.k, { ahead, into: members });
    }
  }
  throw new LedgerError("artifact_corrupt", `Expected a selection of ${formatHandle(blob.hex)} to settle, got none`);
}

/** Fetches chunk `k`'s member, and following ones up to `ahead` compressed bytes, in one ranged read. */
async function fetchMembers(
  blob: OpenBlob,
  layout: ChunkLayout,
  k: number,
  { ahead, into }: { ahead: number; into: Map<number, Buffer> },
): Promise<void> {
  let last = k;
  let bytes = (layout.entries[k] as ChunkEntry).compressedBytes;
  const budget = Math.min(Math.max(ahead, bytes), Math.max(MAX_FETCH_BYTES, ahead));
  // Members of one index group are contiguous; a group boundary (an index member between) ends the run.
  while (last + 1 < layout.entries.length && !into.has(last + 1)) {
    const next = layout.entries[last + 1] as ChunkEntry;
    const contiguous =
      (layout.memberOffset[last + 1] as number) ===
      (layout.memberOffset[last] as number) + (layout.entries[last] as ChunkEntry).compressedBytes;
    if (!contiguous || bytes + next.compressedBytes > budget) break;
    bytes += next.compressedBytes;
    last++;
  }
  const start = layout.memberOffset[k] as number;
  const data = await blob.read(bytes, start);
  if (data.length !== bytes)
    throw new LedgerError(
      "artifact_corrupt",
      `Expected ${bytes} bytes of chunks at ${start} in ${formatHandle(blob.hex)}, got ${data.length}`,
    );
  for (let i = k; i <= last; i++) {
    const at = (layout.memberOffset[i] as number) - start;
    into.set(i, data.subarray(at, at + (layout.entries[i] as ChunkEntry).compressedBytes));
  }
}

/** Decodes a whole older-format blob and checks its SHA-256 against the handle; throws `artifact_corrupt`. */
export function decodeVerified(hex: string, stored: Buffer, compression: Compression | undefined): Buffer {
  const attempts: Compression[] = compression ? [compression] : looksGzipped(stored) ? ["none", "gzip"] : ["none"];
  let why = "";
  for (const c of attempts) {
    try {
      const decoded = decodeBlob(stored, c);
      const actual = sha256Hex(decoded);
      if (actual === hex) return decoded;
      why = `sha256 ${actual}`;
    } catch (err) {
      why = `an undecodable ${c} blob (${(err as Error).message})`;
    }
  }
  throw new LedgerError(
    "artifact_corrupt",
    `Expected the content of ${formatHandle(hex)} to hash to its handle, got ${why}; nothing served`,
  );
}

/** How an existing blob is stored, for the meta of a stash that found it already there. */
export async function describeBlob(
  blob: OpenBlob,
): Promise<{ compression: Compression; storedBytes: number; indexSha256?: string }> {
  if (blob.layout) return { compression: "gzip", storedBytes: blob.size, indexSha256: blob.layout.indexSha256 };
  const onDisk = await blob.read(blob.size, 0);
  const compression = looksGzipped(onDisk) && sha256Hex(onDisk) !== blob.hex ? "gzip" : "none";
  return { compression, storedBytes: blob.size };
}
