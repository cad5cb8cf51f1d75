/**
 * The private files the full-exec wrapper writes: one per wrapped call, made 0600 with an unguessable
 * name in a 0700 folder of the plugin's state, read once into the store and removed.
 */
import { randomUUID } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import path from "node:path";
import { ensureDir, FILE_MODE } from "../../fs/atomic-write.js";
import type { TeeTrailer } from "./tee-filter.js";
import { statusFileOf, trailerFileOf } from "./wrap-command.js";

/** Folder of the tee files under the ledger root. */
export function teeDirOf(root: string): string {
  return path.join(root, "exec-tee");
}

/** Creates an empty tee file, 0600, under a fresh random name (never an existing path). */
export async function createTeeFile(dir: string): Promise<string> {
  await ensureDir(dir);
  const file = path.join(dir, `${randomUUID()}.out`);
  const handle = await fsp.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
  await handle.close();
  return file;
}

/** How a tee file stands when its call has finished. */
export type TeeState =
  /** The stream ended: `kept` of `bytes` are in the file. */
  | { kind: "ended"; bytes: number; kept: number }
  /** No end seen: the command still runs (sent to the background) or was stopped. */
  | { kind: "unfinished"; kept: number }
  /** The filter could not write the file, or the file is not the plugin's any more. */
  | { kind: "unusable"; reason: string };

/** Reads the trailer and checks the file is still the private regular file the plugin made. */
export async function readTeeState(file: string): Promise<TeeState> {
  const st = await fsp.lstat(file).catch(() => undefined);
  if (!st) return { kind: "unusable", reason: "the tee file is gone" };
  if (!st.isFile()) return { kind: "unusable", reason: "the tee file was replaced by another kind of file" };
  if ((st.mode & 0o077) !== 0) return { kind: "unusable", reason: "the tee file is no longer private (0600)" };
  if (typeof process.getuid === "function" && st.uid !== process.getuid())
    return { kind: "unusable", reason: "the tee file belongs to another user" };
  let trailer: Partial<TeeTrailer>;
  try {
    trailer = JSON.parse(await fsp.readFile(trailerFileOf(file), "utf8")) as Partial<TeeTrailer>;
  } catch {
    return { kind: "unfinished", kept: st.size };
  }
  if (trailer.fileOk !== true) return { kind: "unusable", reason: "the filter could not write the tee file" };
  const bytes = Number(trailer.bytes);
  const kept = Number(trailer.kept);
  if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(kept) || kept !== st.size || kept > bytes)
    return { kind: "unusable", reason: `the tee file holds ${st.size} bytes, its trailer says ${trailer.kept}` };
  return { kind: "ended", bytes, kept };
}

/** Removes a tee file and its companions; never throws. */
export async function removeTeeFile(file: string): Promise<void> {
  await Promise.all(
    [file, trailerFileOf(file), `${trailerFileOf(file)}.tmp`, statusFileOf(file)].map((f) =>
      fsp.rm(f, { force: true }).catch(() => undefined),
    ),
  );
}

/**
 * Removes tee files not in `live` and older than `maxAgeMs` (a call the host never finished, a
 * gateway that died mid-call). Answers how many went.
 */
export async function sweepTeeFiles(dir: string, live: ReadonlySet<string>, maxAgeMs: number): Promise<number> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return 0;
  }
  const now = Date.now();
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(".out")) continue;
    const file = path.join(dir, name);
    if (live.has(file)) continue;
    const st = await fsp.lstat(file).catch(() => undefined);
    if (!st || now - st.mtimeMs < maxAgeMs) continue;
    await removeTeeFile(file);
    removed += 1;
  }
  return removed;
}
