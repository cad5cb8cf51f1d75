import { gunzipSync } from "node:zlib";

/** How a blob is stored on disk: as is, or gzip (one member, or chunk members plus an index: see `chunk-index.ts`). */
export type Compression = "none" | "gzip";

/** Decodes a whole stored blob (every gzip member in turn); throws zlib's error on a damaged gzip stream. */
export function decodeBlob(data: Buffer, compression: Compression): Buffer {
  return compression === "gzip" ? gunzipSync(data) : data;
}

/** True when `data` starts with the gzip magic bytes. */
export function looksGzipped(data: Buffer): boolean {
  return data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
}
