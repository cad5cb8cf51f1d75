import { constants, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Largest spill file copied into the store. */
const MAX_SPILL_BYTES = 256 * 1024 * 1024;

// The host's own spill files: `createPrivateTempFilePath(prefix)` in its dist writes
// `<os.tmpdir()>/<prefix>-<16 hex>.log` with mode 0600 (`openclaw-bash`, `openclaw-output`, ...).
const SPILL_NAME = /^openclaw-[a-z0-9-]+-[0-9a-f]{16}\.log$/;

/** Why a path named by a tool result is not read. */
export type SpillRefusal =
  | "not-absolute"
  | "outside-temp-dir"
  | "bad-name"
  | "not-regular-file"
  | "not-private"
  | "not-owned"
  | "too-large"
  | "unreadable";

/** Options for {@link readHostSpillFile}. */
export interface ReadSpillOptions {
  /** Folders the host writes spill files to. @default [os.tmpdir()] */
  spillDirs?: readonly string[];
}

/**
 * Reads a spill file named in a tool result's `details.fullOutputPath` only
 * when it is the host's own: a regular file (no symlink) directly inside the
 * host's temp folder, named like the host names them, mode 0600 and owned by
 * this process's user. A tool result is model-influenced data: any other path
 * (`/etc/passwd`, `~/.ssh/id_rsa`, a link) is refused, never read.
 */
export async function readHostSpillFile(
  file: string,
  options: ReadSpillOptions = {},
): Promise<{ text: string } | { refused: SpillRefusal }> {
  if (!path.isAbsolute(file)) return { refused: "not-absolute" };
  if (!SPILL_NAME.test(path.basename(file))) return { refused: "bad-name" };
  const dirs = options.spillDirs ?? [os.tmpdir()];
  let realDir: string;
  try {
    realDir = await fsp.realpath(path.dirname(file));
  } catch {
    return { refused: "unreadable" };
  }
  const allowed = await Promise.all(dirs.map((d) => fsp.realpath(d).catch(() => undefined)));
  if (!allowed.includes(realDir)) return { refused: "outside-temp-dir" };
  const target = path.join(realDir, path.basename(file));
  // A FIFO or device would block open() (a reader waits for a writer) and tie up the I/O pool: look before opening.
  const seen = await fsp.lstat(target).catch(() => undefined);
  if (!seen) return { refused: "unreadable" };
  if (!seen.isFile()) return { refused: "not-regular-file" };
  let handle: fsp.FileHandle | undefined;
  try {
    // O_NOFOLLOW: a symlink swapped in after the checks is refused by the open itself; O_NONBLOCK: so is a FIFO.
    handle = await fsp.open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile()) return { refused: "not-regular-file" };
    if ((st.mode & 0o077) !== 0) return { refused: "not-private" };
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return { refused: "not-owned" };
    if (st.size > MAX_SPILL_BYTES) return { refused: "too-large" };
    return { text: await handle.readFile({ encoding: "utf8" }) };
  } catch {
    return { refused: "unreadable" };
  } finally {
    await handle?.close();
  }
}
