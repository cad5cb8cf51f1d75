import { lstatSync, readFileSync } from "node:fs";
import { artifactPaths } from "./blob-path.js";
import { decodeBlob, looksGzipped } from "./gzip-codec.js";
import { isHandle, sha256Hex } from "./handle.js";

/** Largest stored blob read synchronously for a content check. */
const MAX_SYNC_BLOB_BYTES = 32 * 1024 * 1024;

/**
 * The verified text of an artifact, read synchronously (assembly shapes
 * messages synchronously, and a capture must be checked against the host copy
 * before its handle is shown). Undefined when missing, not a regular file,
 * too large, or not hashing to its handle: an unverifiable capture is never linked.
 * Reads the local store folder only (with a remote backend, the spool holds every fresh capture).
 */
export function readArtifactTextSync(storeRoot: string, handle: string): string | undefined {
  if (!isHandle(handle)) return undefined;
  const hex = handle.slice(-64);
  const { blob } = artifactPaths(storeRoot, hex);
  try {
    const st = lstatSync(blob);
    if (!st.isFile() || st.size > MAX_SYNC_BLOB_BYTES) return undefined;
    const stored = readFileSync(blob);
    for (const compression of looksGzipped(stored) ? (["gzip", "none"] as const) : (["none"] as const)) {
      try {
        const bytes = decodeBlob(stored, compression);
        if (sha256Hex(bytes) === hex) return bytes.toString("utf8");
      } catch {
        // Not gzip after all: try the raw bytes.
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}
