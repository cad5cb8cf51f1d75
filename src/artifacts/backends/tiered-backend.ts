import { promises as fsp, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { LedgerError } from "../../errors.js";
import { ensureDir } from "../../fs/atomic-write.js";
import type { ObjectInfo, PutBody, StoreBackend } from "./backend-types.js";
import { createFileBackend } from "./file-backend.js";
import { readdirOrEmpty } from "./store-io.js";
import { isTempKey } from "../format/store-keys.js";

/** Folder (inside the local root) holding one empty marker per object still to upload. */
export const SPOOL_DIR = "upload-spool";

/** Options of {@link createTieredBackend}. */
export interface TieredBackendOptions {
  /** The local folder: spool and cache (the file backend's layout). */
  root: string;
  /** The remote store used in a turn: short deadlines, few retries. */
  remote: StoreBackend;
  /** The remote store the background uploader uses (longer deadlines); `remote` when not given. */
  uploader?: StoreBackend;
  /** Bytes waiting to upload beyond which a write is refused with `store_full`. @default 1073741824 */
  spoolBytes?: number;
  /** Bytes of uploaded or fetched objects kept locally (oldest go once the remote has them). @default 1073741824 */
  cacheBytes?: number;
  /** Blobs up to this size are fetched whole into the cache on first read; bigger ones by range. @default 8388608 */
  cacheWholeMaxBytes?: number;
  /** After a failed remote call, the turn path skips the remote this long. @default 5000 */
  remoteCooldownMs?: number;
  /**
   * Asked when an upload found the object already in the remote (another writer put it there): true lets the spool
   * drop it, false keeps it to try again later (a gc may be removing the remote copy). @default every answer is true
   */
  claimExisting?: (key: string) => Promise<boolean>;
  /** Told when uploads start failing (once per outage) and when the spool drained after one. */
  onUploadState?: (state: { ok: boolean; pending: number; pendingBytes: number; error?: string }) => void;
}

/** What is waiting to upload. */
export interface SpoolBacklog {
  objects: number;
  bytes: number;
  /** The last upload error since the last success, if any. */
  lastError?: string;
}

/** A tiered backend: the store's backend plus its spool's controls. */
export interface TieredBackend extends StoreBackend {
  backlog(): SpoolBacklog;
  /** {@link backlog} once the spool a previous run left is counted in (a fresh store counts it in the background). */
  loadedBacklog(): Promise<SpoolBacklog>;
  /** Uploads everything pending now; resolves when the spool is empty or an upload failed. */
  drain(): Promise<SpoolBacklog>;
  /** Drops the local copy of `key` unless it still waits to upload (a damaged cached copy, read again remotely). */
  forgetLocal(key: string): Promise<void>;
  /** Stops background work (timers) and waits for an eviction under way; pending objects stay in the spool. */
  close(): Promise<void>;
}

const encodeKey = (key: string) => key.replaceAll("/", "~");
const decodeKey = (name: string) => name.replaceAll("~", "/");

/**
 * The spool backlog of a local store folder, read synchronously without any network (for `status` and `doctor`).
 */
export function readSpoolBacklog(root: string): SpoolBacklog {
  let objects = 0;
  let bytes = 0;
  let names: string[];
  try {
    names = readdirSync(path.join(root, SPOOL_DIR));
  } catch {
    return { objects, bytes };
  }
  for (const name of names) {
    try {
      bytes += statSync(path.join(root, ...decodeKey(name).split("/"))).size;
      objects++;
    } catch {
      // Uploaded and evicted between the two reads, or a marker whose write a crash cut short: nothing to upload.
    }
  }
  return { objects, bytes };
}

/**
 * Longest wait between upload attempts while the remote is unreachable: a spool drains within this (plus the
 * uploads) of the remote's return. A longer cap saves little (one failed request per attempt).
 */
const MAX_UPLOAD_BACKOFF_MS = 10_000;

/** How long `drain()` waits for gcs removing remote copies of spooled objects before it returns with them spooled. */
const MAX_HELD_WAIT_MS = 60_000;

/** A spool marker without its object older than this is left over from a crash. */
const ORPHAN_MARKER_MS = 60_000;

/** Wait before uploading again an object whose remote copy a gc announced it would remove. */
const HELD_RETRY_MS = 2_000;

/**
 * A backend that never makes a turn wait on the network: writes land in a
 * bounded local spool (the file backend) and are uploaded to the remote in
 * the background, with backoff while it is unreachable; reads try the local
 * copy first, then the remote (small blobs fetched whole into a bounded local
 * cache). A full spool refuses writes with `store_full`, saying how much is
 * waiting and why. Pending uploads survive a restart (one marker file each).
 */
export function createTieredBackend(options: TieredBackendOptions): TieredBackend {
  const root = path.resolve(options.root);
  const local = createFileBackend(root);
  const remote = options.remote;
  const uploader = options.uploader ?? remote;
  const spoolBytes = options.spoolBytes ?? 1024 ** 3;
  const cacheBytes = options.cacheBytes ?? 1024 ** 3;
  const wholeMax = options.cacheWholeMaxBytes ?? 8 * 1024 * 1024;
  const cooldownMs = options.remoteCooldownMs ?? 5_000;
  const spoolDir = path.join(root, SPOOL_DIR);
  const pending = new Map<string, number>();
  let loaded: Promise<void> | undefined;
  let remoteDownUntil = 0;
  let lastError: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let backoffMs = 0;
  let draining: Promise<SpoolBacklog> | undefined;
  let closed = false;
  // Objects the last pass kept back because a gc was removing the remote copy they found.
  let heldBack = 0;
  // Between a failed upload and the pass that emptied the spool again: the state the upload log reports changes of.
  let failing = false;
  // Bytes cached by reads since the last eviction, and the eviction running.
  let fetchedSinceEvict = 0;
  let evicting: Promise<void> | undefined;

  const fileOf = (key: string) => path.join(root, ...key.split("/"));
  const pendingBytes = () => [...pending.values()].reduce((a, b) => a + b, 0);
  const backlog = (): SpoolBacklog => ({
    objects: pending.size,
    bytes: pendingBytes(),
    ...(lastError ? { lastError } : {}),
  });

  function loadSpool(): Promise<void> {
    loaded ??= (async () => {
      for (const name of await readdirOrEmpty(spoolDir)) {
        const key = decodeKey(name);
        const size = (await local.head(key))?.size;
        if (size !== undefined) {
          if (!pending.has(key)) pending.set(key, size);
          continue;
        }
        // A marker without its object: the write it announced never finished, so no handle names it (unless another
        // process of this store is writing it right now: a young marker stays).
        const marker = path.join(spoolDir, name);
        const st = await fsp.stat(marker).catch(() => undefined);
        if (st && Date.now() - st.mtimeMs > ORPHAN_MARKER_MS) await fsp.rm(marker, { force: true });
      }
      if (pending.size > 0) schedule(0);
    })();
    return loaded;
  }

  function schedule(delayMs: number): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void drainPass();
    }, delayMs);
    timer.unref();
  }

  /** Uploads `key`; false when it must stay in the spool a while (the remote copy it found is being removed). */
  async function uploadOne(key: string): Promise<boolean> {
    const size = pending.get(key) ?? 0;
    const created = await uploader.putOnce(key, { file: fileOf(key), size });
    // Found there: a reuse of someone else's copy, which counts only once every gc knows of it.
    if (!created && options.claimExisting && !(await options.claimExisting(key))) return false;
    pending.delete(key);
    await fsp.rm(path.join(spoolDir, encodeKey(key)), { force: true });
    return true;
  }

  /** Passes until the spool is empty or an upload failed (objects spooled during a pass go in the next). */
  async function drain(): Promise<SpoolBacklog> {
    const giveUpAt = Date.now() + MAX_HELD_WAIT_MS;
    for (;;) {
      const after = await drainPass();
      if (after.objects === 0 || after.lastError !== undefined || closed) return after;
      // Only objects a gc is removing the remote copy of are left: wait for that gc, within reason.
      if (heldBack >= after.objects) {
        if (Date.now() > giveUpAt) return after;
        await new Promise((r) => setTimeout(r, HELD_RETRY_MS));
      }
    }
  }

  async function drainPass(): Promise<SpoolBacklog> {
    if (draining) return draining;
    draining = (async () => {
      await loadSpool();
      // Blobs before metas: a meta in the bucket always has its blob there.
      const keys = [...pending.keys()].sort((a, b) => Number(a.startsWith("meta/")) - Number(b.startsWith("meta/")));
      let held = 0;
      for (const key of keys) {
        try {
          if (!(await uploadOne(key))) held++;
        } catch (err) {
          const first = !failing;
          failing = true;
          lastError = (err as Error).message;
          backoffMs = Math.min(MAX_UPLOAD_BACKOFF_MS, backoffMs ? backoffMs * 2 : 1_000);
          if (first)
            options.onUploadState?.({
              ok: false,
              pending: pending.size,
              pendingBytes: pendingBytes(),
              error: lastError,
            });
          schedule(backoffMs);
          return backlog();
        }
      }
      // Said once per outage, when everything it held back is up (objects spooled meanwhile go in later passes).
      if (failing && pending.size <= held) {
        failing = false;
        options.onUploadState?.({ ok: true, pending: pending.size, pendingBytes: pendingBytes() });
      }
      lastError = undefined;
      backoffMs = 0;
      heldBack = held;
      if (held > 0) schedule(HELD_RETRY_MS);
      void evict().catch(() => undefined);
      return backlog();
    })().finally(() => {
      draining = undefined;
      // Objects spooled while this pass ran: the next pass takes them.
      if (pending.size > heldBack && lastError === undefined) schedule(0);
    });
    return draining;
  }

  /**
   * Starts an eviction once reads cached an eighth of the bound since the last one began. Bytes read while one runs
   * count toward the next, which starts when it ends: a reader faster than its evictions stays bounded.
   */
  function evictIfGrown(): void {
    if (evicting || closed || fetchedSinceEvict <= cacheBytes / 8) return;
    fetchedSinceEvict = 0;
    evicting = evict()
      .catch(() => undefined)
      .finally(() => {
        evicting = undefined;
        evictIfGrown();
      });
  }

  /** Drops the oldest local objects the remote confirms it has, until the local copies fit the cache bound. */
  async function evict(): Promise<void> {
    const objects: ObjectInfo[] = [];
    let total = 0;
    for await (const o of local.list("")) {
      if (isTempKey(o.key) || o.key.startsWith(`${SPOOL_DIR}/`) || pending.has(o.key)) continue;
      if (!o.key.startsWith("blobs/") && !o.key.startsWith("meta/")) continue;
      objects.push(o);
      total += o.size;
    }
    if (total <= cacheBytes) return;
    objects.sort((a, b) => a.modifiedMs - b.modifiedMs);
    for (const o of objects) {
      if (total <= cacheBytes) break;
      const there = await uploader.head(o.key);
      if (there?.size !== o.size) continue;
      await local.delete(o.key);
      total -= o.size;
    }
  }

  /** Runs a turn-path remote call unless the remote failed a moment ago; a failure starts the cooldown. */
  async function viaRemote<T>(call: () => Promise<T>): Promise<T> {
    if (Date.now() < remoteDownUntil)
      throw new LedgerError(
        "io_failed",
        `Expected the remote store ${remote.location} to answer, got no answer a moment ago; retrying shortly`,
      );
    try {
      return await call();
    } catch (err) {
      if ((err as { code?: string }).code !== "artifact_forbidden") remoteDownUntil = Date.now() + cooldownMs;
      throw err;
    }
  }

  // What a previous run left in the spool goes up from the start, not only once this store writes again.
  loadSpool().catch(() => {
    loaded = undefined;
  });

  return {
    kind: `spool+${remote.kind}`,
    location: remote.location,
    async putOnce(key: string, body: PutBody): Promise<boolean> {
      await loadSpool();
      const size = "bytes" in body ? body.bytes.byteLength : body.size;
      if (!isTempKey(key) && pendingBytes() + size > spoolBytes)
        throw new LedgerError(
          "store_full",
          `Expected room for ${size} more bytes in the local upload spool of ${remote.location} (cap ${spoolBytes}), got ${pendingBytes()} bytes in ${pending.size} objects still waiting to upload${lastError ? ` (last upload error: ${lastError})` : ""}; nothing is lost, writes resume when the spool drains`,
        );
      if (pending.has(key)) return local.putOnce(key, body);
      // The marker goes first: a crash after the local write still uploads it (a marker without its object is
      // dropped at the next start). An object already here is spooled again: whoever writes it counts on it reaching
      // the remote, and the upload of a copy the remote has costs one refused request.
      const marker = path.join(spoolDir, encodeKey(key));
      await ensureDir(spoolDir);
      await fsp.writeFile(marker, "", { mode: 0o600 });
      let created: boolean;
      try {
        created = await local.putOnce(key, body);
      } catch (err) {
        await fsp.rm(marker, { force: true });
        throw err;
      }
      pending.set(key, created ? size : ((await local.head(key))?.size ?? size));
      schedule(0);
      return created;
    },
    async getRange(key: string, offset: number, length?: number): Promise<Buffer | undefined> {
      const here = await local.getRange(key, offset, length);
      if (here || pending.has(key)) return here;
      // Unreachable is not absent: a reader told "not there" might act on it (gc's reference scan skips it).
      const info = await viaRemote(() => remote.head(key));
      if (!info) return undefined;
      if (info.size <= wholeMax) {
        const whole = await viaRemote(() => remote.getRange(key, 0));
        if (!whole) return undefined;
        // Cached as fetched: content-addressed objects are checked by the store above on every read. A reader is
        // bounded by the cache as a writer is: nothing kept beyond it, and what is kept is evicted as it grows.
        if (whole.length <= cacheBytes) {
          await local.putOnce(key, { bytes: whole }).catch(() => false);
          fetchedSinceEvict += whole.length;
          evictIfGrown();
        }
        return whole.subarray(Math.min(offset, whole.length), length === undefined ? undefined : offset + length);
      }
      return viaRemote(() => remote.getRange(key, offset, length));
    },
    async head(key: string): Promise<ObjectInfo | undefined> {
      const here = await local.head(key);
      if (here) return here;
      // Unreachable counts as absent here: a stash then writes locally and the upload dedups on the remote. Refused
      // credentials do not: they are the operator's to fix, and "not found" would hide them.
      return viaRemote(() => remote.head(key)).catch((err: unknown) => {
        if ((err as { code?: string }).code === "artifact_forbidden") throw err;
        return undefined;
      });
    },
    async *list(prefix: string): AsyncGenerator<ObjectInfo> {
      const byKey = new Map<string, ObjectInfo>();
      // The bucket unreachable: the local copies are listed alone, so every output kept here still resolves by
      // prefix and is searched. A listing is then short, never wrong about what it names (gc removes less).
      if (Date.now() >= remoteDownUntil) {
        try {
          for await (const o of remote.list(prefix)) byKey.set(o.key, o);
        } catch (err) {
          if ((err as { code?: string }).code === "artifact_forbidden") throw err;
          remoteDownUntil = Date.now() + cooldownMs;
        }
      }
      for await (const o of local.list(prefix)) if (!byKey.has(o.key)) byKey.set(o.key, o);
      yield* [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async delete(key: string): Promise<boolean> {
      await loadSpool();
      pending.delete(key);
      await fsp.rm(path.join(spoolDir, encodeKey(key)), { force: true });
      const here = await local.delete(key);
      // Another gateway may have uploaded the same object while it waited here.
      const there = await remote.delete(key);
      return here || there;
    },
    backlog,
    loadedBacklog: async () => (await loadSpool(), backlog()),
    drain,
    async forgetLocal(key: string): Promise<void> {
      if (!pending.has(key)) await local.delete(key);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      while (evicting) await evicting;
    },
  };
}
