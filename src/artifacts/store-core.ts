import { promises as fsp } from "node:fs";
import { LRUCache } from "lru-cache";
import { describeValue, isLedgerError, LedgerError } from "../errors.js";
import { ensureDir } from "../fs/atomic-write.js";
import type { StoreBackend } from "./backends/backend-types.js";
import { incomingDir } from "./format/blob-path.js";
import { writeBlob, type ByteSource, type WrittenBlob } from "./format/blob-writer.js";
import { DEFAULT_CHUNK_BYTES, MAX_CHUNK_BYTES } from "./format/chunk-cut.js";
import { decodeBlob } from "./format/gzip-codec.js";
import { formatHandle, parseHandle, sha256Hex } from "./format/handle.js";
import type { JsonParseMemo } from "./selectors/json-bounded.js";
import { ARTIFACT_META_SCHEMA, cleanOrigin, parseArtifactMeta, type ArtifactMeta } from "./format/meta.js";
import { selectSlice } from "./selectors/selectors.js";
import { readGcEpoch, runGc } from "./gc/store-gc.js";
import { BLOB_PREFIX, blobKey, hexOfMetaKey, META_PREFIX, metaKey } from "./format/store-keys.js";
import {
  describeBlob,
  openBlob,
  readBlobBytes,
  selectFromBlob,
  verifyBlob,
  type OpenBlob,
} from "./store/store-read.js";
import type {
  ArtifactStore,
  GcOptions,
  StashInfo,
  StashResult,
  StashSource,
  StoreFullInfo,
  StoreStats,
} from "./store/store-types.js";
import { runVerifyAll } from "./store/store-verify.js";
import { TextCache } from "./store/decoded-text-lru.js";
import { asByteStream, openSourceFile, readFileChunks } from "./store/stash-source.js";

/** Metas a store object keeps (a few hundred bytes each); a meta is written once and never changed. */
const MAX_CACHED_METAS = 20_000;

/** Options shared by every artifact store, whatever its backend. */
export interface ArtifactStoreOptions {
  /** One agent's local artifact folder (`artifactRoot(ledgerRoot, agentId)`): stash temp files and the gc epoch. */
  root: string;
  /** Cap on stored bytes; a stash beyond it is refused with `store_full`. @default Infinity */
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
  /**
   * Asked before a stash counts on a blob already stored (and returns its handle without writing it): false makes
   * the stash write its own copy. A shared bucket makes the reuse known to every gc here.
   * @default undefined (every stored blob is reused)
   */
  claimReuse?: (hex: string) => Promise<boolean>;
  /**
   * Objects others can write (a bucket): the meta that binds a blob's index may be forged together with the blob, so
   * the first selector read of each blob in this process reads and checks it whole against its handle before any
   * range of it is served. @default false (the index the meta binds is trusted, as on a local disk)
   */
  verifyWholeBeforeRanges?: boolean;
  /** Told when a read found the stored copy of `hex` damaged: a cache in front of the backend drops its copy. */
  onDamaged?: (hex: string) => Promise<void>;
  /** Called with the size of every read of a blob, for metrics and for tests that count bytes read. */
  onBlobRead?: (bytes: number) => void;
  /**
   * Bytes of verified, decoded text kept in memory: whole texts (`readText`,
   * `json` selectors) and the chunks selectors decoded. The text was checked
   * against its digest, so repeated slices of one artifact skip the read,
   * gunzip and hash. 0 disables.
   * @default 67108864
   */
  textCacheBytes?: number;
}

/**
 * The artifact store over any {@link StoreBackend}: content-addressed,
 * deduplicated, chunked and verified. A blob is a sequence of independently
 * gzipped chunks with an index (see `chunk-index.ts`), so a selector reads and
 * checks only the chunks it looks at, against an index the meta binds to the
 * handle; whole reads and `verifyAll` check the whole content against the
 * handle. Blobs of the older single-member format are read and checked whole.
 * The used-bytes figure behind `maxStoreBytes` is counted once per instance and
 * kept up to date by this instance; other processes' writes show up after a gc.
 */
export function createBackendStore(backend: StoreBackend, options: ArtifactStoreOptions): ArtifactStore {
  const root = options.root;
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  // Below 8 bytes a chunk could not always end between two UTF-8 sequences.
  if (!Number.isInteger(chunkBytes) || chunkBytes < 8 || chunkBytes > MAX_CHUNK_BYTES)
    throw new LedgerError(
      "input_invalid",
      `Expected \`chunkBytes\` to be an integer between 8 and ${MAX_CHUNK_BYTES}, got ${describeValue(chunkBytes)}`,
    );
  const now = options.now ?? Date.now;
  const maxStoreBytes = options.maxStoreBytes ?? Number.POSITIVE_INFINITY;
  let usedBytes: number | undefined;
  let incomingMade = false;
  const textCache = new TextCache(options.textCacheBytes ?? 64 * 1024 * 1024);
  // The last `json` selector parse: the model often walks one artifact with several paths in a row.
  const jsonMemo: JsonParseMemo = {};
  // A session search reads every meta, and reading them is most of its cost: each is read once per store object.
  const metas = new LRUCache<string, ArtifactMeta>({ max: MAX_CACHED_METAS });
  // Blobs read and checked whole in this process, by hex, with the index they had (see verifyWholeBeforeRanges).
  const wholeChecked = new LRUCache<string, string>({ max: MAX_CACHED_METAS });
  // Blobs a read found damaged: a stash of their content writes it anew instead of counting on the stored copy.
  const damaged = new LRUCache<string, true>({ max: MAX_CACHED_METAS });

  async function tryReadMetaHex(hex: string): Promise<ArtifactMeta | undefined> {
    const hit = metas.get(hex);
    if (hit) return hit;
    const key = metaKey(hex);
    const data = await backend.getRange(key, 0);
    if (!data) return undefined;
    const meta = parseArtifactMeta(data.toString("utf8"), `${backend.location}/${key}`);
    // A meta copied from another artifact would bind that one's index to this handle.
    if (meta.sha256 !== hex || meta.handle !== formatHandle(hex))
      throw new LedgerError(
        "artifact_corrupt",
        `Expected the meta at ${backend.location}/${key} to describe ${formatHandle(hex)}, got one for ${meta.handle}`,
      );
    metas.set(hex, meta);
    return meta;
  }

  /** Runs `use` on the open blob of `hex`; undefined when there is none. A damaged copy is reported, then thrown. */
  async function withBlob<T>(hex: string, use: (blob: OpenBlob) => Promise<T>): Promise<T | undefined> {
    try {
      const blob = await openBlob(backend, hex, options.onBlobRead);
      return blob ? await use(blob) : undefined;
    } catch (err) {
      if (isLedgerError(err, "artifact_corrupt")) {
        damaged.set(hex, true);
        textCache.delete(hex);
        metas.delete(hex);
        wholeChecked.delete(hex);
        await options.onDamaged?.(hex).catch(() => undefined);
      }
      throw err;
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
    for await (const obj of backend.list(BLOB_PREFIX)) total += obj.size;
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
      `Expected room for ${needed} more bytes in the artifact store \`${backend.location}\` (cap ${maxStoreBytes}), got ${used} bytes already used; run \`context-ledger artifact gc\` or raise limits.maxStoreBytes`,
    );
  }

  async function removeHex(hex: string): Promise<boolean> {
    textCache.delete(hex);
    metas.delete(hex);
    const size = (await backend.head(blobKey(hex)))?.size;
    const blobRemoved = await backend.delete(blobKey(hex));
    const metaRemoved = await backend.delete(metaKey(hex));
    if (usedBytes !== undefined && size !== undefined && blobRemoved) usedBytes = Math.max(0, usedBytes - size);
    return blobRemoved || metaRemoved;
  }

  /** The stored artifact of `hex` when both blob and meta are there. */
  async function existingArtifact(hex: string): Promise<StashResult | undefined> {
    if (damaged.has(hex)) return undefined;
    if (!(await backend.head(blobKey(hex)))) return undefined;
    const meta = await tryReadMetaHex(hex).catch(() => undefined);
    if (!meta) return undefined;
    if (options.claimReuse && !(await options.claimReuse(hex).catch(() => false))) return undefined;
    return { handle: formatHandle(hex), meta, created: false };
  }

  /** Writes `source` through a temp file in `incoming/`, then puts it in place unless it is already there. */
  async function stashFrom(source: ByteSource, info: StashInfo, knownSha256?: string): Promise<StashResult> {
    const incoming = incomingDir(root);
    if (!incomingMade) {
      await ensureDir(incoming);
      incomingMade = true;
    }
    const written = await writeBlob(source, { dir: incoming, level: options.gzipLevel ?? 1, chunkBytes, knownSha256 });
    let created: boolean;
    try {
      // Content seen only now (a stream) may already be stored; stash(bytes) looked before writing.
      const existing = knownSha256 === undefined ? await existingArtifact(written.sha256) : undefined;
      if (existing) return existing;
      await makeRoom(written.storedBytes);
      // The right bytes for a damaged copy: the copy goes, so the create-once write below puts them in its place.
      if (damaged.has(written.sha256)) {
        // Best effort: when the damaged copy cannot go now, the stash still stores its own good copy.
        await backend.delete(blobKey(written.sha256)).catch(() => false);
        await backend.delete(metaKey(written.sha256)).catch(() => false);
        damaged.delete(written.sha256);
        metas.delete(written.sha256);
      }
      created = await backend.putOnce(blobKey(written.sha256), { file: written.temp, size: written.storedBytes });
      if (created && usedBytes !== undefined) usedBytes += written.storedBytes;
    } finally {
      await fsp.unlink(written.temp).catch(() => undefined);
    }
    return writeMeta(written, created, info);
  }

  async function writeMeta(written: WrittenBlob, created: boolean, info: StashInfo): Promise<StashResult> {
    const hex = written.sha256;
    const handle = formatHandle(hex);
    // Lost a race, or a blob left without meta: the meta describes the blob that is there, and binds its index
    // only when it is the index this stash computed from the content itself.
    let stored: { compression: ArtifactMeta["compression"]; storedBytes: number; indexSha256?: string } = written;
    if (!created) {
      const there = await withBlob(hex, describeBlob);
      if (there) {
        const { indexSha256, ...rest } = there;
        stored = indexSha256 !== undefined && indexSha256 === written.indexSha256 ? there : rest;
      }
    }
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
      ...(stored.indexSha256 === undefined ? {} : { indexSha256: stored.indexSha256 }),
    };
    const metaCreated = await backend.putOnce(metaKey(hex), {
      bytes: Buffer.from(`${JSON.stringify(meta, null, 2)}\n`, "utf8"),
    });
    if (!metaCreated) {
      metas.delete(hex);
      const winner = await tryReadMetaHex(hex).catch(() => undefined);
      if (winner) return { handle, meta: winner, created };
    }
    return { handle, meta, created };
  }

  const store: ArtifactStore = {
    root,
    backend: { kind: backend.kind, location: backend.location },
    gcEpoch: () => readGcEpoch(root),
    async stash(content: string | Uint8Array, info: StashInfo = {}): Promise<StashResult> {
      const bytes =
        typeof content === "string"
          ? Buffer.from(content, "utf8")
          : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      // Known content is looked up before any work: a re-stash costs a hash and two lookups.
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
    async select(handle, selector, sliceOptions) {
      const hex = parseHandle(handle);
      const withMemo = { ...sliceOptions, jsonMemo };
      const slice = await withBlob(hex, async (blob) => {
        if (blob.layout && options.verifyWholeBeforeRanges && wholeChecked.get(hex) !== blob.layout.indexSha256) {
          await verifyBlob(blob, undefined);
          wholeChecked.set(hex, blob.layout.indexSha256);
        }
        const recorded = blob.layout ? (await tryReadMetaHex(hex).catch(() => undefined))?.indexSha256 : undefined;
        return selectFromBlob(blob, selector, withMemo, { indexSha256: recorded, cache: textCache });
      });
      if (slice) return slice;
      return selectSlice(await store.readText(handle), selector, withMemo);
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
    async readUnverified(handle) {
      const hex = parseHandle(handle);
      const raw = await backend.getRange(blobKey(hex), 0);
      if (!raw) return undefined;
      const compression = (await tryReadMetaHex(hex).catch(() => undefined))?.compression ?? "gzip";
      try {
        return decodeBlob(raw, compression);
      } catch {
        return raw;
      }
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
      return (await backend.head(blobKey(parseHandle(handle)))) !== undefined;
    },
    async *list() {
      for await (const { key } of backend.list(META_PREFIX)) {
        const hex = hexOfMetaKey(key);
        if (!hex) continue;
        // An unreadable meta is skipped here; verifyAll reports it.
        const meta = await tryReadMetaHex(hex).catch(() => undefined);
        if (meta) yield meta;
      }
    },
    locate(handle) {
      const hex = parseHandle(handle);
      return { blob: `${backend.location}/${blobKey(hex)}`, meta: `${backend.location}/${metaKey(hex)}` };
    },
    async remove(handle) {
      return removeHex(parseHandle(handle));
    },
    async gc(gcOptions: GcOptions = {}) {
      const report = await runGc(
        { root, backend, now, removeHex, readMetaHex: (hex) => tryReadMetaHex(hex).catch(() => undefined) },
        gcOptions,
      );
      if (!report.dryRun) usedBytes = undefined;
      return report;
    },
    async verifyAll(verifyOptions = {}) {
      return runVerifyAll({ backend, verifyHex }, verifyOptions.onProgress);
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
