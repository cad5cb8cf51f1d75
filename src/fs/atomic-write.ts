import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { LedgerError } from "../errors.js";

/** Mode for every file context-ledger writes. */
export const FILE_MODE = 0o600;
/** Mode for every directory context-ledger creates. */
export const DIR_MODE = 0o700;
/** Prefix of in-flight temp files; `gc` and `doctor` sweep stale ones. */
export const TEMP_PREFIX = ".tmp-";

/** Options for {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /**
   * Keep an existing target instead of replacing it (content-addressed blobs).
   * @default false
   */
  keepExisting?: boolean;
}

/**
 * Creates `dir` (and parents) with mode 0700. Only folders this call created are
 * chmodded: an existing folder (the host's, the operator's) keeps its mode.
 */
export async function ensureDir(dir: string): Promise<void> {
  const first = await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
  if (first === undefined) return;
  // mkdir's mode is filtered by umask; chmod makes 0700 hold under any umask, for each folder made here.
  const made = path.relative(first, dir).split(path.sep).filter(Boolean);
  let current = first;
  await fsp.chmod(current, DIR_MODE);
  for (const part of made) {
    current = path.join(current, part);
    await fsp.chmod(current, DIR_MODE);
  }
}

/**
 * Writes `data` to `target` atomically: a temp file in the same directory,
 * fsync, rename. The temp file is removed on any error. Returns false when
 * `keepExisting` found the target already present (nothing written).
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<boolean> {
  await ensureDir(path.dirname(target));
  if (options.keepExisting && (await exists(target))) return false;
  let temp: string | undefined;
  try {
    temp = await writeSyncedTemp(target, data);
    if (options.keepExisting && (await exists(target))) return false;
    // Replacing a file keeps its mode: a host transcript rewritten in place stays as the host made it.
    const mode = await fsp.stat(target).then(
      (st) => st.mode & 0o777,
      () => undefined,
    );
    if (mode !== undefined && mode !== FILE_MODE) await fsp.chmod(temp, mode);
    await fsp.rename(temp, target);
    temp = undefined;
    return true;
  } catch (err) {
    throw new LedgerError("io_failed", `Expected to write \`${target}\` atomically, got ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    if (temp) await fsp.rm(temp, { force: true }).catch(() => undefined);
  }
}

/**
 * Writes `data` to a fresh temp file beside `target` (0600, fsynced) and
 * returns its path; the caller renames or links it into place and removes it
 * on failure. A failed write removes its own temp file.
 */
export async function writeSyncedTemp(target: string, data: string | Uint8Array): Promise<string> {
  const temp = path.join(
    path.dirname(target),
    `${TEMP_PREFIX}${path.basename(target)}-${process.pid}-${randomBytes(6).toString("hex")}`,
  );
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(temp, "wx", FILE_MODE);
    await handle.writeFile(data);
    await handle.chmod(FILE_MODE);
    await handle.sync();
    await handle.close();
    handle = undefined;
    return temp;
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** True when `file` exists (any type). */
export async function exists(file: string): Promise<boolean> {
  try {
    await fsp.lstat(file);
    return true;
  } catch {
    return false;
  }
}
