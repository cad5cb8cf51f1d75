import { promises as fsp, readFileSync } from "node:fs";
import path from "node:path";
import { TEMP_PREFIX } from "../../fs/atomic-write.js";
import type { StoreBackend } from "../backends/backend-types.js";
import { incomingDir } from "../format/blob-path.js";
import { formatHandle } from "../format/handle.js";
import type { ArtifactMeta } from "../format/meta.js";
import { readdirOrEmpty } from "../backends/store-io.js";
import { BLOB_PREFIX, hexOfBlobKey, isTempKey, META_PREFIX } from "../format/store-keys.js";
import type { GcOptions, GcRemoval, GcReport } from "../store/store-types.js";

/**
 * File in a store's root rewritten by every gc that removed something: processes that cached "already stored" re-check.
 */
export const GC_EPOCH_FILE = "gc-epoch";

/**
 * The store's gc epoch (0 when gc never removed anything). Read synchronously, once per assemble: a read of a few bytes
 * costs microseconds, while an awaited one hands the event loop to every other session of the gateway (with ten at
 * once, tens of milliseconds before the assemble resumes).
 */
export function readGcEpoch(root: string): number {
  let text: string;
  try {
    text = readFileSync(path.join(root, GC_EPOCH_FILE), "utf8");
  } catch {
    return 0;
  }
  const n = Number(text.trim());
  return Number.isFinite(n) ? n : 0;
}

/** Temp files younger than this may belong to a stash in flight and are left alone. */
export const STALE_TEMP_MS = 60_000;

/** Removals announced and re-checked together: one announcement, one last read of the touches, per batch. */
const REMOVAL_BATCH = 200;

/** What gc needs from the store. */
export interface GcContext {
  /** The local folder of the gc epoch and of stash temp files. */
  root: string;
  backend: StoreBackend;
  now: () => number;
  removeHex: (hex: string) => Promise<boolean>;
  readMetaHex: (hex: string) => Promise<ArtifactMeta | undefined>;
}

interface Entry {
  hex: string;
  handle: string;
  storedBytes: number;
  createdMs: number;
  createdAt: string;
  modifiedMs: number;
}

/**
 * Garbage-collects one store. Candidates are unreferenced artifacts: first
 * those older than `maxAgeMs`, then the oldest until stored bytes fit
 * `maxTotalBytes`. Blobs without meta count too (their age is the file's mtime).
 */
export async function runGc(ctx: GcContext, options: GcOptions): Promise<GcReport> {
  const given = options.referenced ?? new Set<string>();
  const keepNewer = options.keepNewerThanMs ?? 0;
  const dryRun = options.dryRun ?? false;
  const progress = options.onProgress;
  const now = ctx.now();
  const entries: Entry[] = [];
  const stale: string[] = [];

  const staleKeys: string[] = [];
  for await (const obj of ctx.backend.list(BLOB_PREFIX)) {
    if (isTempKey(obj.key)) {
      if (now - obj.modifiedMs > STALE_TEMP_MS) staleKeys.push(obj.key);
      continue;
    }
    const hex = hexOfBlobKey(obj.key);
    if (!hex) continue;
    const meta = await ctx.readMetaHex(hex);
    const createdMs = meta ? Date.parse(meta.createdAt) : obj.modifiedMs;
    entries.push({
      hex,
      handle: formatHandle(hex),
      storedBytes: obj.size,
      createdMs: Number.isFinite(createdMs) ? createdMs : obj.modifiedMs,
      createdAt: meta?.createdAt ?? new Date(obj.modifiedMs).toISOString(),
      modifiedMs: obj.modifiedMs,
    });
    if (entries.length % 500 === 0) progress?.({ phase: "scan", done: entries.length, total: 0 });
  }
  for await (const obj of ctx.backend.list(META_PREFIX)) {
    if (isTempKey(obj.key) && now - obj.modifiedMs > STALE_TEMP_MS) staleKeys.push(obj.key);
  }
  for (const name of await readdirOrEmpty(incomingDir(ctx.root))) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const file = path.join(incomingDir(ctx.root), name);
    const st = await fsp.lstat(file).catch(() => undefined);
    if (st && now - st.mtimeMs > STALE_TEMP_MS) stale.push(file);
  }
  progress?.({ phase: "scan", done: entries.length, total: entries.length });
  const vetoed = options.mayRemove
    ? entries.filter((e) => !given.has(e.handle) && !options.mayRemove?.(e.handle, e.modifiedMs)).map((e) => e.handle)
    : [];
  const referenced =
    keepNewer > 0 || vetoed.length > 0
      ? new Set([...given, ...vetoed, ...entries.filter((e) => now - e.createdMs < keepNewer).map((e) => e.handle)])
      : given;

  const removals: GcRemoval[] = [];
  const removedHex = new Set<string>();
  if (options.maxAgeMs !== undefined) {
    for (const e of entries) {
      if (now - e.createdMs <= options.maxAgeMs) continue;
      if (referenced.has(e.handle)) continue;
      removals.push({ handle: e.handle, storedBytes: e.storedBytes, createdAt: e.createdAt, reason: "expired" });
      removedHex.add(e.hex);
    }
  }
  let total = entries.reduce((sum, e) => sum + (removedHex.has(e.hex) ? 0 : e.storedBytes), 0);
  if (options.maxTotalBytes !== undefined && total > options.maxTotalBytes) {
    const oldestFirst = entries
      .filter((e) => !removedHex.has(e.hex) && !referenced.has(e.handle))
      .sort((a, b) => a.createdMs - b.createdMs || a.hex.localeCompare(b.hex));
    for (const e of oldestFirst) {
      if (total <= options.maxTotalBytes) break;
      removals.push({ handle: e.handle, storedBytes: e.storedBytes, createdAt: e.createdAt, reason: "over-size" });
      removedHex.add(e.hex);
      total -= e.storedBytes;
    }
  }

  if (!dryRun) {
    // Announced before the first removal: a running engine that sees the new epoch re-stashes what it cites.
    if (removals.length > 0)
      await fsp.writeFile(path.join(ctx.root, GC_EPOCH_FILE), `${Math.max(now, readGcEpoch(ctx.root) + 1)}\n`, {
        mode: 0o600,
      });
    const modifiedOf = new Map(entries.map((e) => [e.handle, e.modifiedMs]));
    let done = 0;
    for (let start = 0; start < removals.length; start += REMOVAL_BATCH) {
      const batch = removals.slice(start, start + REMOVAL_BATCH);
      const gate = await options.beforeRemove?.(
        batch.map((r) => ({ handle: r.handle, modifiedMs: modifiedOf.get(r.handle) ?? 0 })),
      );
      try {
        for (const r of batch) {
          if (gate?.keep.has(r.handle)) {
            removedHex.delete(r.handle.slice(-64));
            continue;
          }
          await ctx.removeHex(r.handle.slice(-64));
        }
      } finally {
        await gate?.done();
      }
      done += batch.length;
      progress?.({ phase: "remove", done, total: removals.length });
    }
    for (const file of stale) {
      await fsp.rm(file, { force: true }).catch(() => undefined);
    }
    for (const key of staleKeys) await ctx.backend.delete(key).catch(() => undefined);
  }
  const staleTempFiles = stale.length + staleKeys.length;
  progress?.({ phase: "sweep", done: staleTempFiles, total: staleTempFiles });

  const removed = removals.filter((r) => removedHex.has(r.handle.slice(-64)));
  const freed = removed.reduce((sum, r) => sum + r.storedBytes, 0);
  const kept = entries.filter((e) => !removedHex.has(e.hex));
  return {
    dryRun,
    removed,
    freedStoredBytes: freed,
    keptCount: kept.length,
    keptStoredBytes: kept.reduce((sum, e) => sum + e.storedBytes, 0),
    referencedKept: kept.filter((e) => referenced.has(e.handle)).length,
    staleTempFiles,
  };
}
