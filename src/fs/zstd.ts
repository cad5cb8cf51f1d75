import zlib from "node:zlib";

/**
 * Node's zstd decompressor (the host's SQLite transcript rows may be zstd), or undefined
 * before Node 22.15. Looked up, not imported by name: a missing named export fails the
 * whole module graph at load time, and the CLI must load on Node 20.
 */
export function zstdDecompressor(): ((data: Uint8Array) => Buffer) | undefined {
  return (zlib as unknown as { zstdDecompressSync?: (data: Uint8Array) => Buffer }).zstdDecompressSync;
}
