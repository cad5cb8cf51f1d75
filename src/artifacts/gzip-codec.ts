import { gunzipSync, gzipSync, constants } from "node:zlib";

/** How a blob is stored on disk. */
export type Compression = "none" | "gzip";

/** Blobs smaller than this are stored as is: gzip cannot win much there. */
const MIN_GZIP_BYTES = 256;

/**
 * Encodes `bytes` for storage: gzip when it saves space, else the raw bytes.
 * Deterministic: Node's gzip header carries no file name and mtime 0, so the
 * same input always gives the same stored bytes.
 */
export function encodeBlob(bytes: Buffer, level = 6): { data: Buffer; compression: Compression } {
  if (bytes.length < MIN_GZIP_BYTES) return { data: bytes, compression: "none" };
  const gz = gzipSync(bytes, { level, strategy: constants.Z_DEFAULT_STRATEGY });
  return gz.length < bytes.length ? { data: gz, compression: "gzip" } : { data: bytes, compression: "none" };
}

/** Decodes stored bytes; throws zlib's error on a damaged gzip stream. */
export function decodeBlob(data: Buffer, compression: Compression): Buffer {
  return compression === "gzip" ? gunzipSync(data) : data;
}

/** True when `data` starts with the gzip magic bytes. */
export function looksGzipped(data: Buffer): boolean {
  return data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
}
