import { promises as fsp } from "node:fs";
import path from "node:path";
import { LedgerError } from "../errors.js";
import { ensureDir } from "../fs/atomic-write.js";
import { artifactPaths, assertInsideStore, blobsDir, metaDir } from "./blob-path.js";
import { decodeBlob, encodeBlob, looksGzipped, type Compression } from "./gzip-codec.js";
import { formatHandle, parseHandle, sha256Hex } from "./handle.js";
import { ARTIFACT_META_SCHEMA, cleanOrigin, parseArtifactMeta, type ArtifactMeta } from "./meta.js";
import { runGc } from "./store-gc.js";
import { createFileIfAbsent, isNotFound, readFileNoFollow, walkFanout } from "./store-io.js";
import type { ArtifactStore, GcOptions, StashInfo, StashResult, StoreFullInfo, StoreStats } from "./store-types.js";
import { runVerifyAll } from "./store-verify.js";

/** Options for {@link createArtifactStore}. */
export interface ArtifactStoreOptions {
  /** One agent's artifact folder (`artifactRoot(ledgerRoot, agentId)`). */
  root: string;
  /** Cap on stored (on-disk) bytes; a stash beyond it is refused with `store_full`. @default Infinity */
  maxStoreBytes?: number;
  /**
   * Asked before refusing a stash for space: return gc options (typically with
   * `referenced` and `maxAgeMs`) to run first, or undefined to refuse at once.
   * @default undefined (refuse)
   */
  onStoreFull?: (info: StoreFullInfo) => GcOptions | undefined | Promise<GcOptions | undefined>;
  /** Clock in epoch ms. @default Date.now */
  now?: () => number;
  /** gzip level 1-9; level 1 keeps stashing fast (several times level 6) at a modest size cost. @default 1 */
  gzipLevel?: number;
  /**
   * Bytes of verified, decoded text kept in memory for `readText`. Blobs are
   * immutable and the text was checked against its handle, so repeated slices
   * of one artifact skip the disk, gunzip and hash. 0 disables.
   * @default 67108864
   */
  textCacheBytes?: number;
}

/**
 * Creates the content-addressed store of one agent. Blobs are immutable once
 * created, verified on every read, and never leave the store's real path.
 * The used-bytes figure behind `maxStoreBytes` is counted once per instance and
 * kept up to date by this instance; other processes' writes show up after a gc.
 */
export function createArtifactStore(options: ArtifactStoreOptions): ArtifactStore {
  const root = path.resolve(options.root);
  const now = options.now ?? Date.now;
  const maxStoreBytes = options.maxStoreBytes ?? Number.POSITIVE_INFINITY;
  const madeDirs = new Set<string>();
  let realRoot: string | undefined;
  let usedBytes: number | undefined;
  const textCache = new Map<string, string>();
  const textCacheMax = options.textCacheBytes ?? 64 * 1024 * 1024;
  let textCacheSize = 0;

  async function rootReal(create: boolean): Promise<string | undefined> {
    if (realRoot) return realRoot;
    if (create) await ensureDir(root);
    try {
      realRoot = await fsp.realpath(root);
      return realRoot;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async function ensureInside(real: string, dir: string): Promise<void> {
    await assertInsideStore(real, dir);
    if (!madeDirs.has(dir)) {
      await ensureDir(dir);
      madeDirs.add(dir);
    }
    await assertInsideStore(real, dir);
  }

  async function readFileInside(file: string): Promise<Buffer | undefined> {
    const real = await rootReal(false);
    if (!real) return undefined;
    await assertInsideStore(real, file);
    try {
      return await readFileNoFollow(file);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if ((err as NodeJS.ErrnoException).code === "ELOOP") {
        throw new LedgerError("path_outside_store", `Expected a regular file at \`${file}\`, got a symlink`, {
          cause: err,
        });
      }
      throw err;
    }
  }

  async function tryReadMetaHex(hex: string): Promise<ArtifactMeta | undefined> {
    const { meta } = artifactPaths(root, hex);
    const data = await readFileInside(meta);
    return data ? parseArtifactMeta(data.toString("utf8"), meta) : undefined;
  }

  async function tryReadHex(hex: string): Promise<Buffer | undefined> {
    const { blob } = artifactPaths(root, hex);
    const stored = await readFileInside(blob);
    if (!stored) return undefined;
    const meta = await tryReadMetaHex(hex).catch(() => undefined);
    return decodeVerified(hex, stored, meta?.compression);
  }

  async function countUsed(): Promise<number> {
    if (usedBytes !== undefined) return usedBytes;
    let total = 0;
    for await (const { file } of walkFanout(blobsDir(root))) {
      total += (await fsp.lstat(file).catch(() => undefined))?.size ?? 0;
    }
    usedBytes = total;
    return total;
  }

  async function makeRoom(needed: number): Promise<void> {
    if (!Number.isFinite(maxStoreBytes)) return;
    let used = await countUsed();
    if (used + needed <= maxStoreBytes) return;
    const gcOptions = await options.onStoreFull?.({ neededBytes: needed, usedBytes: used, maxStoreBytes });
    if (gcOptions) {
      await store.gc({ ...gcOptions, dryRun: false });
      usedBytes = undefined;
      used = await countUsed();
      if (used + needed <= maxStoreBytes) return;
    }
    throw new LedgerError(
      "store_full",
      `Expected room for ${needed} more bytes in the artifact store \`${root}\` (cap ${maxStoreBytes}), got ${used} bytes already used; run \`context-ledger artifact gc\` or raise limits.maxStoreBytes`,
    );
  }

  async function removeHex(hex: string): Promise<boolean> {
    const cached = textCache.get(hex);
    if (cached !== undefined) {
      textCache.delete(hex);
      textCacheSize -= cached.length * 2;
    }
    const real = await rootReal(false);
    if (!real) return false;
    const paths = artifactPaths(root, hex);
    await assertInsideStore(real, paths.blob);
    await assertInsideStore(real, paths.meta);
    const size = (await fsp.lstat(paths.blob).catch(() => undefined))?.size;
    let removed = false;
    for (const file of [paths.blob, paths.meta]) {
      try {
        await fsp.unlink(file);
        removed = true;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    if (usedBytes !== undefined && size !== undefined) usedBytes = Math.max(0, usedBytes - size);
    return removed;
  }

  const store: ArtifactStore = {
    root,
    async stash(content: string | Uint8Array, info: StashInfo = {}): Promise<StashResult> {
      const bytes =
        typeof content === "string"
          ? Buffer.from(content, "utf8")
          : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      const hex = sha256Hex(bytes);
      const handle = formatHandle(hex);
      const paths = artifactPaths(root, hex);
      const real = (await rootReal(true)) as string;
      await assertInsideStore(real, paths.blob);
      if (
        await fsp.lstat(paths.blob).then(
          () => true,
          () => false,
        )
      ) {
        const existing = await tryReadMetaHex(hex).catch(() => undefined);
        if (existing) return { handle, meta: existing, created: false };
      }
      const encoded = encodeBlob(bytes, options.gzipLevel ?? 1);
      await makeRoom(encoded.data.length);
      await ensureInside(real, path.dirname(paths.blob));
      const created = await createFileIfAbsent(paths.blob, encoded.data);
      let compression: Compression = encoded.compression;
      let storedBytes = encoded.data.length;
      if (created) {
        if (usedBytes !== undefined) usedBytes += storedBytes;
      } else {
        const onDisk = await readFileNoFollow(paths.blob);
        storedBytes = onDisk.length;
        compression = looksGzipped(onDisk) && sha256Hex(onDisk) !== hex ? "gzip" : "none";
      }
      const meta: ArtifactMeta = {
        schema: ARTIFACT_META_SCHEMA,
        handle,
        sha256: hex,
        bytes: bytes.length,
        storedBytes,
        compression,
        createdAt: new Date(now()).toISOString(),
        kind: info.kind ?? "artifact",
        format: info.format ?? "text",
        lines: countLinesInBytes(bytes),
        origin: cleanOrigin(info.origin),
      };
      await ensureInside(real, path.dirname(paths.meta));
      const metaCreated = await createFileIfAbsent(paths.meta, `${JSON.stringify(meta, null, 2)}\n`);
      if (!metaCreated) {
        const winner = await tryReadMetaHex(hex).catch(() => undefined);
        if (winner) return { handle, meta: winner, created };
      }
      return { handle, meta, created };
    },
    async read(handle) {
      const data = await tryReadHex(parseHandle(handle));
      if (!data) throw notFound(handle);
      return data;
    },
    async tryRead(handle) {
      return tryReadHex(parseHandle(handle));
    },
    async readText(handle) {
      const hex = parseHandle(handle);
      const hit = textCache.get(hex);
      if (hit !== undefined) {
        textCache.delete(hex);
        textCache.set(hex, hit);
        return hit;
      }
      const text = (await store.read(handle)).toString("utf8");
      if (text.length * 2 <= textCacheMax / 2) {
        textCache.set(hex, text);
        textCacheSize += text.length * 2;
        for (const [key, value] of textCache) {
          if (textCacheSize <= textCacheMax) break;
          textCache.delete(key);
          textCacheSize -= value.length * 2;
        }
      }
      return text;
    },
    async readMeta(handle) {
      const meta = await tryReadMetaHex(parseHandle(handle));
      if (!meta) throw notFound(handle);
      return meta;
    },
    async tryReadMeta(handle) {
      return tryReadMetaHex(parseHandle(handle));
    },
    async has(handle) {
      const hex = parseHandle(handle);
      const real = await rootReal(false);
      if (!real) return false;
      const { blob } = artifactPaths(root, hex);
      await assertInsideStore(real, blob);
      return (await fsp.lstat(blob).catch(() => undefined))?.isFile() ?? false;
    },
    async *list() {
      for await (const { name } of walkFanout(metaDir(root))) {
        if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
        // An unreadable meta is skipped here; verifyAll reports it.
        const meta = await tryReadMetaHex(name.slice(0, 64)).catch(() => undefined);
        if (meta) yield meta;
      }
    },
    async remove(handle) {
      return removeHex(parseHandle(handle));
    },
    async gc(gcOptions: GcOptions = {}) {
      const report = await runGc(
        { root, now, removeHex, readMetaHex: (hex) => tryReadMetaHex(hex).catch(() => undefined) },
        gcOptions,
      );
      if (!report.dryRun) usedBytes = undefined;
      return report;
    },
    async verifyAll(verifyOptions = {}) {
      return runVerifyAll({ root, readHex: tryReadHex }, verifyOptions.onProgress);
    },
    async stats(): Promise<StoreStats> {
      let count = 0;
      let bytes = 0;
      let storedBytes = 0;
      for await (const meta of store.list()) {
        count++;
        bytes += meta.bytes;
        storedBytes += meta.storedBytes;
      }
      return { count, bytes, storedBytes };
    },
  };
  return store;
}

/** Decodes stored bytes and checks their SHA-256 against the handle; throws `artifact_corrupt`. */
function decodeVerified(hex: string, stored: Buffer, compression: Compression | undefined): Buffer {
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

function countLinesInBytes(bytes: Buffer): number {
  if (bytes.length === 0) return 0;
  let n = 0;
  let i = bytes.indexOf(10);
  while (i >= 0) {
    n++;
    i = bytes.indexOf(10, i + 1);
  }
  return bytes[bytes.length - 1] === 10 ? n : n + 1;
}

function notFound(handle: string): LedgerError {
  return new LedgerError("artifact_not_found", `Expected an artifact for \`${handle}\` in this store, got none`);
}
