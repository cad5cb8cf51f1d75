import { TEMP_PREFIX } from "../fs/atomic-write.js";
import { isLedgerError } from "../errors.js";
import { blobsDir, metaDir } from "./blob-path.js";
import { formatHandle } from "./handle.js";
import { walkFanout } from "./store-io.js";
import type { StoreProgress, VerifyReport } from "./store-types.js";

/** What verification needs from the store. */
export interface VerifyContext {
  root: string;
  /** Reads and verifies one blob without keeping it; false when missing, throws `artifact_corrupt` on a mismatch. */
  verifyHex: (hex: string) => Promise<boolean>;
}

/** Reads and verifies every blob, and pairs blobs with meta files. */
export async function runVerifyAll(
  ctx: VerifyContext,
  onProgress?: (progress: StoreProgress) => void,
): Promise<VerifyReport> {
  const blobs: string[] = [];
  for await (const { name } of walkFanout(blobsDir(ctx.root))) {
    if (!name.startsWith(TEMP_PREFIX) && /^[0-9a-f]{64}$/.test(name)) blobs.push(name);
  }
  const metas = new Set<string>();
  for await (const { name } of walkFanout(metaDir(ctx.root))) {
    if (/^[0-9a-f]{64}\.json$/.test(name)) metas.add(name.slice(0, 64));
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
