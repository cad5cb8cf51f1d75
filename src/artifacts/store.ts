import { promises as fsp } from "node:fs";
import path from "node:path";
import { LRUCache } from "lru-cache";
import { describeValue, LedgerError } from "../errors.js";
import { ensureDir } from "../fs/atomic-write.js";
import { artifactPaths, assertInsideStore, blobsDir, incomingDir, metaDir } from "./blob-path.js";
import { writeBlob, type ByteSource, type WrittenBlob } from "./blob-writer.js";
import { DEFAULT_CHUNK_BYTES, MAX_CHUNK_BYTES } from "./chunk-cut.js";
import { formatHandle, parseHandle, sha256Hex } from "./handle.js";
import { ARTIFACT_META_SCHEMA, cleanOrigin, parseArtifactMeta, type ArtifactMeta } from "./meta.js";
import type { JsonParseMemo } from "./json-bounded.js";
import { selectSlice } from "./selectors.js";
import { readGcEpoch, runGc } from "./store-gc.js";
import { createFileIfAbsent, isNotFound, linkIfAbsent, readFileNoFollow, walkFanout } from "./store-io.js";
import { describeBlob, openBlob, readBlobBytes, selectFromBlob, verifyBlob, type OpenBlob } from "./store-read.js";
import type {
  ArtifactStore,
  GcOptions,
  StashInfo,
  StashResult,
  StashSource,
  StoreFullInfo,
  StoreStats,
} from "./store-types.js";
import { runVerifyAll } from "./store-verify.js";
import { TextCache } from "./text-cache.js";
import { asByteStream, openSourceFile, readFileChunks } from "./stash-source.js";

/** Metas a store object keeps from its listings (a few hundred bytes each). */
const MAX_LISTED_METAS = 20_000;

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
  /** Raw bytes per independently gzipped chunk of a blob (what a ranged read decodes at least). @default 1048576 */
  chunkBytes?: number;
  /** Called with the size of every read of a blob file, for metrics and for tests that count bytes read. */
  onBlobRead?: (bytes: number) => void;
  /**
   * Bytes of verified, decoded text kept in memory: whole texts (`readText`,
   * `json` selectors) and the chunks selectors decoded. The text was checked
   * against its digest, so repeated slices of one artifact skip the disk,
   * gunzip and hash. 0 disables.
   * @default 67108864
   */
  textCacheBytes?: number;
}

/**
 * Creates the content-addressed store of one agent. Blobs are immutable once
 * created and never leave the store's real path. A blob is a sequence of
 * independently gzipped chunks with an index (see `chunk-index.ts`), so a
 * selector reads and checks only the chunks it looks at; whole reads and
 * `verifyAll` check the whole content against the handle. Blobs of the older
 * single-member format are read and checked whole.
 * The used-bytes figure behind `maxStoreBytes` is counted once per instance and
 * kept up to date by this instance; other processes' writes show up after a gc.
 */
export function createArtifactStore(options: ArtifactStoreOptions): ArtifactStore {
  const root = path.resolve(options.root);
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  // Below 8 bytes a chunk could not always end between two UTF-8 sequences.
  if (!Number.isInteger(chunkBytes) || chunkBytes < 8 || chunkBytes > MAX_CHUNK_BYTES)
    throw new LedgerError(
      "input_invalid",
      `Expected \`chunkBytes\` to be an integer between 8 and ${MAX_CHUNK_BYTES}, got ${describeValue(chunkBytes)}`,
    );
  const now = options.now ?? Date.now;
  const maxStoreBytes = options.maxStoreBytes ?? Number.POSITIVE_INFINITY;
  const madeDirs = new Set<string>();
  let realRoot: string | undefined;
  let usedBytes: number | undefined;
  const textCache = new TextCache(options.textCacheBytes ?? 64 * 1024 * 1024);
  // The last `json` selector parse: the model often walks one artifact with several paths in a row.
  const jsonMemo: JsonParseMemo = {};

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

  /** Makes `dir` if needed, checking it lies inside the store before (nothing made through a link) and after. */
  async function ensureInside(real: string, dir: string): Promise<void> {
    await assertInsideStore(real, dir);
    if (madeDirs.has(dir)) return;
    await ensureDir(dir);
    madeDirs.add(dir);
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

  // A meta file is written once, beside its blob, and never changed: list() reads each one once per store object
  // (the walk still decides which exist). Reading 500 metas was most of a session search (250 of 470 ms).
  const listedMetas = new LRUCache<string, ArtifactMeta>({ max: MAX_LISTED_METAS });

  async function tryReadMetaHex(hex: string): Promise<ArtifactMeta | undefined> {
    const { meta } = artifactPaths(root, hex);
    const data = await readFileInside(meta);
    return data ? parseArtifactMeta(data.toString("utf8"), meta) : undefined;
  }

  /** Runs `use` on the open blob of `hex`; undefined when there is none. */
  async function withBlob<T>(hex: string, use: (blob: OpenBlob) => Promise<T>): Promise<T | undefined> {
    const real = await rootReal(false);
    if (!real) return undefined;
    const blob = await openBlob(real, artifactPaths(root, hex).blob, hex, options.onBlobRead);
    if (!blob) return undefined;
    try {
      return await use(blob);
    } finally {
      await blob.file.close();
    }
  }

  async function legacyCompression(blob: OpenBlob) {
    return blob.layout ? undefined : (await tryReadMetaHex(blob.hex).catch(() => undefined))?.compression;
  }

  async function tryReadHex(hex: string): Promise<Buffer | undefined> {
    return withBlob(hex, async (blob) => readBlobBytes(blob, await legacyCompression(blob)));
  }

  async function verifyHex(hex: string): Promise<boolean> {
    const found = await withBlob(hex, async (blob) => {
      await verifyBlob(blob, await legacyCompression(blob));
      return true;
    });
    return found ?? false;
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
    textCache.delete(hex);
    listedMetas.delete(hex);
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

  /** The stored artifact of `hex` when both blob and meta are there. */
  async function existingArtifact(hex: string): Promise<StashResult | undefined> {
    const real = (await rootReal(true)) as string;
    const paths = artifactPaths(root, hex);
    // Not there: the write that follows checks its folders. There: it must be inside before it is trusted.
    const found = await fsp.lstat(paths.blob).then(
      () => true,
      (err: unknown) => {
        if (isNotFound(err)) return false;
        throw err;
      },
    );
    if (!found) return undefined;
    await assertInsideStore(real, paths.blob);
    const meta = await tryReadMetaHex(hex).catch(() => undefined);
    return meta ? { handle: formatHandle(hex), meta, created: false } : undefined;
  }

  /** Writes `source` through a temp file in `incoming/`, then links it into place unless it is already there. */
  async function stashFrom(source: ByteSource, info: StashInfo, knownSha256?: string): Promise<StashResult> {
    const real = (await rootReal(true)) as string;
    const incoming = incomingDir(root);
    await ensureInside(real, incoming);
    const prepare = (hex: string) =>
      Promise.all([
        ensureInside(real, path.dirname(artifactPaths(root, hex).blob)),
        ensureInside(real, path.dirname(artifactPaths(root, hex).meta)),
      ]);
    // With the digest known, the folders are made while the blob is written.
    const early = knownSha256 === undefined ? undefined : prepare(knownSha256);
    early?.catch(() => undefined);
    const written = await writeBlob(source, { dir: incoming, level: options.gzipLevel ?? 1, chunkBytes, knownSha256 });
    let created: boolean;
    try {
      // Content seen only now (a stream) may already be stored; stash(bytes) looked before writing.
      const existing = knownSha256 === undefined ? await existingArtifact(written.sha256) : undefined;
      if (existing) return existing;
      await (early ?? prepare(written.sha256));
      created = await placeBlob(real, written);
    } finally {
      await fsp.unlink(written.temp).catch(() => undefined);
    }
    return writeMeta(real, written, created, info);
  }
  async function placeBlob(real: string, written: WrittenBlob): Promise<boolean> {
    const { blob } = artifactPaths(root, written.sha256);
    await makeRoom(written.storedBytes);
    await ensureInside(real, path.dirname(blob));
    const created = await linkIfAbsent(written.temp, blob);
    if (created && usedBytes !== undefined) usedBytes += written.storedBytes;
    return created;
  }

  async function writeMeta(
    real: string,
    written: WrittenBlob,
    created: boolean,
    info: StashInfo,
  ): Promise<StashResult> {
    const hex = written.sha256;
    const handle = formatHandle(hex);
    // Lost a race, or a blob left without meta: the meta describes the blob that is there.
    const stored = created
      ? { compression: written.compression, storedBytes: written.storedBytes }
      : ((await withBlob(hex, describeBlob)) ?? { compression: written.compression, storedBytes: written.storedBytes });
    const meta: ArtifactMeta = {
      schema: ARTIFACT_META_SCHEMA,
      handle,
      sha256: hex,
      bytes: written.bytes,
      storedBytes: stored.storedBytes,
      compression: stored.compression,
      createdAt: new Date(now()).toISOString(),
      kind: info.kind ?? "artifact",
      format: info.format ?? "text",
      lines: written.lines,
      origin: cleanOrigin(info.origin),
    };
    const metaPath = artifactPaths(root, hex).meta;
    await ensureInside(real, path.dirname(metaPath));
    const metaCreated = await createFileIfAbsent(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
    if (!metaCreated) {
      const winner = await tryReadMetaHex(hex).catch(() => undefined);
      if (winner) return { handle, meta: winner, created };
    }
    return { handle, meta, created };
  }

  const store: ArtifactStore = {
    root,
    gcEpoch: () => readGcEpoch(root),
    async stash(content: string | Uint8Array, info: StashInfo = {}): Promise<StashResult> {
      const bytes =
        typeof content === "string"
          ? Buffer.from(content, "utf8")
          : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      // Known content is looked up before any work: a re-stash costs a hash and two stats.
      const hex = sha256Hex(bytes);
      const existing = await existingArtifact(hex);
      if (existing) return existing;
      return stashFrom([bytes], info, hex);
    },
    async stashStream(source: StashSource, info: StashInfo = {}): Promise<StashResult> {
      return stashFrom(asByteStream(source), info);
    },
    async stashFile(file: string, info: StashInfo = {}): Promise<StashResult> {
      const handle = await openSourceFile(file);
      try {
        return await stashFrom(readFileChunks(handle, chunkBytes), info);
      } finally {
        await handle.close();
      }
    },
    async select(handle, selector, options) {
      const hex = parseHandle(handle);
      const sliceOptions = { ...options, jsonMemo };
      const slice = await withBlob(hex, (blob) => selectFromBlob(blob, selector, sliceOptions, textCache));
      if (slice) return slice;
      return selectSlice(await store.readText(handle), selector, sliceOptions);
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
      if (hit !== undefined) return hit;
      const text = (await store.read(handle)).toString("utf8");
      textCache.set(hex, text);
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
        const hex = name.slice(0, 64);
        // An unreadable meta is skipped here; verifyAll reports it.
        const meta = listedMetas.get(hex) ?? (await tryReadMetaHex(hex).catch(() => undefined));
        if (!meta) continue;
        listedMetas.set(hex, meta);
        yield meta;
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
      return runVerifyAll({ root, verifyHex }, verifyOptions.onProgress);
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

function notFound(handle: string): LedgerError {
  return new LedgerError("artifact_not_found", `Expected an artifact for \`${handle}\` in this store, got none`);
}
