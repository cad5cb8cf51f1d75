import { promises as fsp } from "node:fs";
import path from "node:path";
import { isNotFound } from "../../errors.js";
import { writeSyncedTemp } from "../../fs/atomic-write.js";

/**
 * Creates `target` with `data` unless it already exists: a synced temp file in the same directory, hard-linked
 * to the final name by {@link linkIfAbsent} (an existing file is never replaced, a reader never sees a partial
 * one). The temp file is always removed. Returns true when this call created the file.
 */
export async function createFileIfAbsent(target: string, data: Uint8Array | string): Promise<boolean> {
  const temp = await writeSyncedTemp(target, data);
  try {
    return await linkIfAbsent(temp, target);
  } finally {
    await fsp.unlink(temp).catch(() => undefined);
  }
}

/**
 * Hard-links the finished temp file `temp` to `target` unless `target`
 * exists: atomic (EEXIST), never replaces a file, and a reader never sees a
 * partial one. Returns true when this call created `target`. The caller removes `temp`.
 */
export async function linkIfAbsent(temp: string, target: string): Promise<boolean> {
  try {
    await fsp.link(temp, target);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/** Lists names in `dir`, or an empty list when it does not exist. */
export async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(dir)).sort();
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

/** Yields every file under a two-level `ab/cd/` fan-out folder, sorted. */
export async function* walkFanout(dir: string): AsyncGenerator<{ file: string; name: string }> {
  for (const a of await readdirOrEmpty(dir)) {
    for (const b of await readdirOrEmpty(path.join(dir, a))) {
      const leaf = path.join(dir, a, b);
      for (const name of await readdirOrEmpty(leaf)) yield { file: path.join(leaf, name), name };
    }
  }
}
