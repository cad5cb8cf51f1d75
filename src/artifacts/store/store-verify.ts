import { isLedgerError } from "../../errors.js";
import type { StoreBackend } from "../backends/backend-types.js";
import { formatHandle } from "../format/handle.js";
import { BLOB_PREFIX, hexOfBlobKey, hexOfMetaKey, META_PREFIX } from "../format/store-keys.js";
import type { StoreProgress, VerifyReport } from "./store-types.js";

/** What verification needs from the store. */
export interface VerifyContext {
  backend: StoreBackend;
  /** Reads and verifies one blob without keeping it; false when missing, throws `artifact_corrupt` on a mismatch. */
  verifyHex: (hex: string) => Promise<boolean>;
}

/** Reads and verifies every blob, and pairs blobs with meta files. */
export async function runVerifyAll(
  ctx: VerifyContext,
  onProgress?: (progress: StoreProgress) => void,
): Promise<VerifyReport> {
  const blobs: string[] = [];
  for await (const { key } of ctx.backend.list(BLOB_PREFIX)) {
    const hex = hexOfBlobKey(key);
    if (hex) blobs.push(hex);
  }
  const metas = new Set<string>();
  for await (const { key } of ctx.backend.list(META_PREFIX)) {
    const hex = hexOfMetaKey(key);
    if (hex) metas.add(hex);
  }
  const report: VerifyReport = { ok: [], corrupt: [], orphanedMeta: [], orphanedBlobs: [] };
  const blobSet = new Set(blobs);
  let done = 0;
  for (const hex of blobs) {
    const handle = formatHandle(hex);
    try {
      if (await ctx.verifyHex(hex)) report.ok.push(handle);
    } catch (err) {
      const reason = isLedgerError(err) ? `${err.code}: ${err.message}` : (err as Error).message;
      report.corrupt.push({ handle, reason });
    }
    if (!metas.has(hex)) report.orphanedBlobs.push(handle);
    done++;
    if (done % 100 === 0 || done === blobs.length) onProgress?.({ phase: "verify", done, total: blobs.length });
  }
  for (const hex of metas) if (!blobSet.has(hex)) report.orphanedMeta.push(formatHandle(hex));
  return report;
}
