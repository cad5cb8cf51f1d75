import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { errorMessage, isLedgerError, isNotFound, LedgerError } from "../../errors.js";
import { ensureDir, TEMP_PREFIX } from "../../fs/atomic-write.js";
import type { StoreBackend } from "../backends/backend-types.js";
import { incomingDir } from "../format/blob-path.js";
import { formatHandle } from "../format/handle.js";
import { parseArtifactMeta } from "../format/meta.js";
import { BLOB_PREFIX, blobKey, hexOfBlobKey, hexOfMetaKey, META_PREFIX, metaKey } from "../format/store-keys.js";
import { describeBlob, openBlob, verifyBlob } from "../store/store-read.js";

/** Objects up to this size are copied in memory; bigger ones through a local temp file, piece by piece. */
const IN_MEMORY_MAX_BYTES = 8 * 1024 * 1024;

/** Failures that concern one artifact (its bytes, or it vanished meanwhile): the run reports them and goes on. */
const PER_ARTIFACT = ["artifact_corrupt", "state_corrupt", "artifact_not_found"] as const;

/** Options of {@link migrateArtifacts}. */
export interface MigrateOptions {
  source: StoreBackend;
  target: StoreBackend;
  /** A local folder for temp files of large objects (the agent's artifact folder). */
  root: string;
  /**
   * A local file listing the digests already copied and verified on this target: a rerun skips them without
   * reading them back. Undefined: everything found on the target is verified again.
   */
  journal?: string;
  /** Plan only: nothing is written or read back. @default false */
  dryRun?: boolean;
  /** Stops between two artifacts; what was verified stays done, a rerun goes on from there. */
  signal?: AbortSignal;
  /** Called after each artifact. */
  onArtifact?: (progress: MigrateProgress) => void;
}

/** Where a migration is. */
export interface MigrateProgress {
  done: number;
  total: number;
  handle: string;
  outcome: "copied" | "present" | "failed";
}

/** The answer of {@link migrateArtifacts}. */
export interface MigrateReport {
  source: string;
  target: string;
  dryRun: boolean;
  /** Artifacts in the source (with a blob). */
  total: number;
  /** Copied by this run and verified on the target (in a dry run: would be copied). */
  copied: number;
  /** Already on the target: verified by this run, or by an earlier one (journal). */
  present: number;
  /** Stored bytes this run copied (or would copy). */
  copiedBytes: number;
  /** Artifacts that did not verify on the target, or failed to copy; the rest of the run went on. */
  failed: Array<{ handle: string; reason: string }>;
  /** Metas in the source without a blob: nothing to move. */
  orphanedMeta: string[];
  /** True when the signal stopped the run before the end. */
  interrupted: boolean;
}

/**
 * Copies every artifact (blob, then meta) of `source` to `target` in the
 * store's own content-addressed format, through the backend interface only.
 * Create-once writes make it idempotent: an object the target has is never
 * rewritten, so a rerun after a kill copies only what is missing. Each
 * artifact counts as moved only once the target's copy passed the store's
 * verification (every chunk and the whole content against the handle, and the
 * index the meta binds); a copy this run made that fails it is removed from
 * the target again, so a rerun can copy it afresh. A failure of the backends
 * themselves (unreachable, refused) ends the run with that error's code,
 * saying how far it got. The source is never changed.
 */
export async function migrateArtifacts(options: MigrateOptions): Promise<MigrateReport> {
  const { source, target, dryRun = false } = options;
  const report: MigrateReport = {
    source: source.location,
    target: target.location,
    dryRun,
    total: 0,
    copied: 0,
    present: 0,
    copiedBytes: 0,
    failed: [],
    orphanedMeta: [],
    interrupted: false,
  };
  const srcBlobs = await sizes(source, BLOB_PREFIX, hexOfBlobKey);
  const srcMetas = await sizes(source, META_PREFIX, hexOfMetaKey);
  const dstBlobs = await sizes(target, BLOB_PREFIX, hexOfBlobKey);
  const dstMetas = await sizes(target, META_PREFIX, hexOfMetaKey);
  report.orphanedMeta = [...srcMetas.keys()].filter((h) => !srcBlobs.has(h)).map(formatHandle);
  const hexes = [...srcBlobs.keys()].sort();
  report.total = hexes.length;
  const verified = options.journal ? await readJournal(options.journal) : new Set<string>();
  if (options.journal && !dryRun) await ensureDir(path.dirname(options.journal));
  let done = 0;
  for (const hex of hexes) {
    if (options.signal?.aborted) {
      report.interrupted = true;
      break;
    }
    const handle = formatHandle(hex);
    const wantMeta = srcMetas.has(hex);
    const missing = [
      ...(dstBlobs.has(hex) ? [] : [blobKey(hex)]),
      ...(wantMeta && !dstMetas.has(hex) ? [metaKey(hex)] : []),
    ];
    let outcome: MigrateProgress["outcome"] = missing.length > 0 ? "copied" : "present";
    if (dryRun) {
      for (const key of missing) report.copiedBytes += (key === blobKey(hex) ? srcBlobs : srcMetas).get(hex) ?? 0;
    } else if (missing.length > 0 || !verified.has(hex)) {
      const created: string[] = [];
      try {
        // Blob before meta: a meta on the target always has its blob there.
        for (const key of missing) {
          if (await copyObject(source, target, key, options.root)) created.push(key);
          report.copiedBytes += (key === blobKey(hex) ? srcBlobs : srcMetas).get(hex) ?? 0;
        }
        await verifyOnTarget(target, hex, wantMeta);
        if (options.journal) await fsp.appendFile(options.journal, `${hex}\n`, { mode: 0o600 });
      } catch (err) {
        for (const key of created.reverse()) await target.delete(key).catch(() => false);
        // A bad artifact is one artifact's failure; a target or source that stops answering ends the run.
        if (!PER_ARTIFACT.some((code) => isLedgerError(err, code))) throw stopped(err, done, report);
        report.failed.push({ handle, reason: errorMessage(err) });
        outcome = "failed";
      }
    }
    if (outcome === "copied") report.copied++;
    else if (outcome === "present") report.present++;
    done++;
    options.onArtifact?.({ done, total: hexes.length, handle, outcome });
  }
  return report;
}

/** Sizes by digest of the objects under `prefix`. */
async function sizes(
  backend: StoreBackend,
  prefix: string,
  hexOf: (key: string) => string | undefined,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const o of backend.list(prefix)) {
    const hex = hexOf(o.key);
    if (hex) out.set(hex, o.size);
  }
  return out;
}

/** Copies one object unless the target has it; true when this call created it. */
async function copyObject(source: StoreBackend, target: StoreBackend, key: string, root: string): Promise<boolean> {
  const info = await source.head(key);
  if (!info) throw new LedgerError("artifact_not_found", `Expected \`${key}\` in ${source.location}, got none`);
  if (info.size <= IN_MEMORY_MAX_BYTES) {
    const bytes = await source.getRange(key, 0);
    if (!bytes) throw new LedgerError("artifact_not_found", `Expected \`${key}\` in ${source.location}, got none`);
    return target.putOnce(key, { bytes });
  }
  // Large blobs go through a temp file: never held whole in memory, and a multipart upload streams from it.
  const dir = incomingDir(root);
  await ensureDir(dir);
  const temp = path.join(dir, `${TEMP_PREFIX}migrate-${process.pid}-${randomBytes(6).toString("hex")}`);
  const out = await fsp.open(temp, "wx", 0o600);
  try {
    let offset = 0;
    while (offset < info.size) {
      const piece = await source.getRange(key, offset, Math.min(IN_MEMORY_MAX_BYTES, info.size - offset));
      if (!piece || piece.length === 0)
        throw new LedgerError("io_failed", `Expected ${info.size} bytes of \`${key}\`, got ${offset}`);
      await out.write(piece, 0, piece.length, offset);
      offset += piece.length;
    }
    await out.sync();
    await out.close();
    return await target.putOnce(key, { file: temp, size: info.size });
  } finally {
    await out.close().catch(() => undefined);
    await fsp.unlink(temp).catch(() => undefined);
  }
}

/**
 * Reads the target's copy back as the store does: every chunk and the whole content against the handle, and the
 * meta (when there is one) names this digest and binds the index the blob has.
 */
async function verifyOnTarget(target: StoreBackend, hex: string, wantMeta: boolean): Promise<void> {
  const where = `${target.location}/${metaKey(hex)}`;
  const raw = wantMeta ? await target.getRange(metaKey(hex), 0) : undefined;
  if (wantMeta && !raw) throw new LedgerError("artifact_not_found", `Expected the meta ${where}, got none`);
  const meta = raw ? parseArtifactMeta(raw.toString("utf8"), where) : undefined;
  if (meta && meta.sha256 !== hex)
    throw new LedgerError("artifact_corrupt", `Expected the meta ${where} to name ${hex}, got ${meta.sha256}`);
  const blob = await openBlob(target, hex);
  if (!blob) throw new LedgerError("artifact_not_found", `Expected the blob of ${formatHandle(hex)} on the target`);
  await verifyBlob(blob, blob.layout ? undefined : meta?.compression);
  const index = blob.layout ? (await describeBlob(blob)).indexSha256 : undefined;
  if (meta?.indexSha256 !== undefined && index !== meta.indexSha256)
    throw new LedgerError(
      "artifact_corrupt",
      `Expected the blob of ${formatHandle(hex)} on the target to have the index its meta binds (${meta.indexSha256}), got ${index ?? "none"}`,
    );
}

async function readJournal(file: string): Promise<Set<string>> {
  let text = "";
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  // A line torn by a kill is not a digest and is ignored.
  return new Set(text.split("\n").filter((l) => /^[0-9a-f]{64}$/.test(l)));
}

/** The error that ends a run, saying how far it got and that a rerun goes on from there. */
function stopped(err: unknown, done: number, report: MigrateReport): LedgerError {
  const code = isLedgerError(err) ? err.code : "io_failed";
  return new LedgerError(
    code,
    `${(err as Error).message}; the migration from ${report.source} to ${report.target} stopped after ${done} of ${report.total} artifacts (those are moved and verified): run it again to go on`,
    { cause: err },
  );
}
