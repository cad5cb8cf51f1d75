import { constants, promises as fsp } from "node:fs";
import { LedgerError } from "../errors.js";
import { assertInsideStore } from "./blob-path.js";
import { readAllChunks, readChunkLayout, readerOf, type ChunkLayout, type ReadAt } from "./blob-reader.js";
import { ChunkedText } from "./chunked-text.js";
import { decodeBlob, looksGzipped, type Compression } from "./gzip-codec.js";
import { formatHandle, sha256Hex } from "./handle.js";
import { assertJsonSelectable } from "./json-bounded.js";
import type { Selector, Slice, SliceOptions } from "./selector-types.js";
import { selectSlice } from "./selectors.js";
import { isNotFound } from "./store-io.js";
import type { TextCache } from "./text-cache.js";

/** Largest text a `grep` selector reads whole (and caches) instead of chunk by chunk. */
const WHOLE_TEXT_GREP_MAX_CHARS = 16 * 1024 * 1024;

/** An open blob: a chunked one with its layout, or one of the older whole-blob formats. */
export interface OpenBlob {
  hex: string;
  file: fsp.FileHandle;
  size: number;
  read: ReadAt;
  /** Undefined for a raw or single-member gzip blob (read and checked whole). */
  layout: ChunkLayout | undefined;
  observe: ((bytes: number) => void) | undefined;
}

/**
 * Opens the blob at `file` (inside `realRoot`, never through a symlink) and
 * reads its index when it has one. Undefined when there is no blob; the
 * caller closes `file`.
 */
export async function openBlob(
  realRoot: string,
  file: string,
  hex: string,
  observe?: (bytes: number) => void,
): Promise<OpenBlob | undefined> {
  await assertInsideStore(realRoot, file);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    if ((err as NodeJS.ErrnoException).code === "ELOOP") {
      throw new LedgerError("path_outside_store", `Expected a regular file at \`${file}\`, got a symlink`, {
        cause: err,
      });
    }
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) {
      throw new LedgerError("artifact_corrupt", `Expected a regular file at \`${file}\`, got another kind of file`);
    }
    const read = readerOf(handle, observe);
    const layout = await readChunkLayout(read, st.size, hex);
    return { hex, file: handle, size: st.size, read, layout, observe };
  } catch (err) {
    await handle.close();
    throw err;
  }
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

/**
 * A selector's slice of a chunked blob, reading only the chunks it looks at
 * (a `json` selector needs the whole text: its size is checked from the index
 * first, then it is read whole, or taken from `cache`); undefined for an
 * older-format blob, which the caller reads whole.
 */
export async function selectFromBlob(
  blob: OpenBlob,
  selector: Selector,
  options: SliceOptions,
  cache?: TextCache,
): Promise<Slice | undefined> {
  const layout = blob.layout;
  if (!layout) return undefined;
  if (selector.kind === "json") assertJsonSelectable(layout.chars);
  // A grep reads every chunk anyway: up to this size it runs on the whole string, kept in the cache for the next
  // call (through chunks it took ~4x as long on a 10 MB log, repeated calls included).
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
  return selectSlice(new ChunkedText(blob.file.fd, layout, { observe: blob.observe, cache }), selector, options);
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
export async function describeBlob(blob: OpenBlob): Promise<{ compression: Compression; storedBytes: number }> {
  if (blob.layout) return { compression: "gzip", storedBytes: blob.size };
  const onDisk = await blob.read(blob.size, 0);
  const compression = looksGzipped(onDisk) && sha256Hex(onDisk) !== blob.hex ? "gzip" : "none";
  return { compression, storedBytes: blob.size };
}
