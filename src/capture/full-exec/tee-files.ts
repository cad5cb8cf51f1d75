/**
 * The private files the full-exec wrapper writes: one per wrapped call, made 0600 with an unguessable
 * name in a 0700 folder of the plugin's state, read once into the store and removed.
 */
import { randomUUID } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import path from "node:path";
import { ensureDir, FILE_MODE } from "../../fs/atomic-write.js";
import type { TeeTrailer } from "./tee-filter.js";
import { fifoFileOf, readyFileOf, trailerFileOf } from "./wrap-command.js";

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

/**
 * Reads the trailer and checks the file is still the private regular file the plugin made. The trailer is
 * read before the file is looked at: the filter writes it only after its last byte, so a command that ends
 * between the two reads is seen as unfinished (and read again), never as a file whose size disagrees.
 */
export async function readTeeState(file: string): Promise<TeeState> {
  const trailer = await fsp
    .readFile(trailerFileOf(file), "utf8")
    .then((text) => JSON.parse(text) as Partial<TeeTrailer>)
    .catch(() => undefined);
  const st = await fsp.lstat(file).catch(() => undefined);
  if (!st) return { kind: "unusable", reason: "the tee file is gone" };
  if (!st.isFile()) return { kind: "unusable", reason: "the tee file was replaced by another kind of file" };
  if ((st.mode & 0o077) !== 0) return { kind: "unusable", reason: "the tee file is no longer private (0600)" };
  if (typeof process.getuid === "function" && st.uid !== process.getuid())
    return { kind: "unusable", reason: "the tee file belongs to another user" };
  if (!trailer) return { kind: "unfinished", kept: st.size };
  if (trailer.fileOk !== true) return { kind: "unusable", reason: "the filter could not write the tee file" };
  const bytes = Number(trailer.bytes);
  const kept = Number(trailer.kept);
  if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(kept) || kept !== st.size || kept > bytes)
    return { kind: "unusable", reason: `the tee file holds ${st.size} bytes, its trailer says ${trailer.kept}` };
  return { kind: "ended", bytes, kept };
}

/** A tee file and every file made beside it: the trailer, its temp name, the FIFOs, the old status file. */
function companionsOf(file: string): string[] {
  return [file, trailerFileOf(file), `${trailerFileOf(file)}.tmp`, fifoFileOf(file), readyFileOf(file), `${file}.rc`];
}

/** The tee file a name in the tee folder belongs to, by its `<uuid>.out` prefix; undefined for others. */
const TEE_NAME = /^([0-9a-f-]{36}\.out)(?:\.json|\.json\.tmp|\.fifo|\.ready|\.rc)?$/;

/** Removes a tee file and its companions; never throws. */
export async function removeTeeFile(file: string): Promise<void> {
  await Promise.all(companionsOf(file).map((f) => fsp.rm(f, { force: true }).catch(() => undefined)));
}

/**
 * Removes tee files not in `live` whose newest file is older than `maxAgeMs` (a call the host never
 * finished, a gateway that died mid-call), with every companion, also those whose tee file is gone
 * already (a trailer the filter wrote after the capture removed the call's files). Answers how many
 * calls' files went.
 */
export async function sweepTeeFiles(dir: string, live: ReadonlySet<string>, maxAgeMs: number): Promise<number> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return 0;
  }
  const newest = new Map<string, number>();
  for (const name of names) {
    const tee = TEE_NAME.exec(name)?.[1];
    if (!tee) continue;
    const st = await fsp.lstat(path.join(dir, name)).catch(() => undefined);
    if (!st) continue;
    newest.set(tee, Math.max(newest.get(tee) ?? 0, st.mtimeMs));
  }
  const now = Date.now();
  let removed = 0;
  for (const [tee, mtimeMs] of newest) {
    const file = path.join(dir, tee);
    if (live.has(file) || now - mtimeMs < maxAgeMs) continue;
    await removeTeeFile(file);
    removed += 1;
  }
  return removed;
}
