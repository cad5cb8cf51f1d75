import { accessSync, constants, statfsSync } from "node:fs";
import os from "node:os";

const TMPFS_MAGIC = 0x01021994;

/**
 * Where a run that writes thousands of small files and tests no durability keeps them: Linux's `/dev/shm` when it
 * is a writable tmpfs with `minFreeBytes` free (there fsync costs nothing), else `os.tmpdir()`. Crash and
 * durability tests stay on the real disk.
 */
export function memoryTmpRoot(minFreeBytes = 1024 ** 3): string {
  const shm = "/dev/shm";
  try {
    const fs = statfsSync(shm);
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= minFreeBytes) {
      accessSync(shm, constants.W_OK);
      return shm;
    }
  } catch {
    // No /dev/shm (macOS, Windows): the usual temp folder.
  }
  return os.tmpdir();
}
