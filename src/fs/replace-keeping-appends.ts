import { fstatSync, promises as fsp, readSync, renameSync, writeSync } from "node:fs";
import path from "node:path";
import { writeSyncedTemp } from "./atomic-write.js";
import { findWriters, type InodeId } from "./file-writers.js";

/** Catch-up rounds before giving up on a file that never holds still. */
const MAX_CATCH_UP_ROUNDS = 10_000;
/** How long the old inode must stay quiet, with no writer holding it, after the rename. */
const LATE_QUIET_MS = 50;
/** Pause between looks at the old inode's size after the rename: a late line is carried over within about this. */
const LATE_POLL_MS = 1;
/** Pause between looks for processes holding the old inode open after the rename. */
const LATE_SCAN_MS = 50;
/** A writer that opened the old inode just before the rename is waited for this long at most. */
const LATE_WRITER_MAX_MS = 60_000;

/** What {@link replaceKeepingAppends} did. */
export type ReplaceOutcome =
  | {
      replaced: true;
      /** Bytes appended to the file since `readBytes` and carried over. */
      carried: number;
      /**
       * A process that opened the old file just before the rename and still held it open when the wait ended: what it
       * writes from now on reaches only the old inode (the caller's link to it).
       */
      lateWriter?: number;
      /**
       * Bytes that reached the old inode after the rename and were carried after bytes another process had appended
       * to the new file meanwhile: a writer that opened the file just before the rename, wrote there, then appended
       * its next line to the new file (only a writer that ignores the file's lock can), so those lines may stand out
       * of the order they were written in. Nothing is lost.
       */
      outOfOrder?: number;
    }
  | {
      replaced: false;
      /** `rewritten`: the file shrank (rewritten, not appended to); `unsettled`: it never held still. */
      reason: "rewritten" | "unsettled";
    }
  | {
      replaced: false;
      /** A process holds the file open for writing: its next line would reach the old inode, not the file. */
      reason: "held";
      /** That process. */
      writer: number;
    };

/** Options for {@link replaceKeepingAppends}. */
export interface ReplaceOptions {
  /** Bytes of the file that `replacement` rewrites: what is past them was appended since, and is carried over. */
  readBytes: number;
  /** Pids holding an inode open for writing. @default {@link findWriters} */
  findWriters?: (inode: InodeId, dir: string) => number[];
}

/**
 * Replaces `file` with `replacement` (a rewrite of its first `options.readBytes` bytes), carrying over every byte
 * appended since: `original` is a hard link to the file's inode, so whatever is appended before the rename is in it.
 * The replacement is written and synced once; the new tail is copied over until the inode holds still. Then, just
 * before the rename, the processes that hold the file open for writing are looked for: a writer that opened it and
 * has not written yet would write into the old inode after the rename, so with one the file is left as it is
 * (`held`). One that opens the file in the instant between that look and the rename is found after it, and waited
 * for: its bytes are carried over as they arrive, until no process holds the old inode and it has been quiet for
 * {@link LATE_QUIET_MS}.
 */
export async function replaceKeepingAppends(
  file: string,
  original: string,
  replacement: Uint8Array,
  options: ReplaceOptions,
): Promise<ReplaceOutcome> {
  const { readBytes } = options;
  const writersOf = options.findWriters ?? findWriters;
  const dir = path.dirname(file);
  const source = await fsp.open(original, "r");
  let temp: string | undefined;
  try {
    const inode = await source.stat();
    let carried = readBytes;
    // Bytes this replace put in the new file: past them, the new file holds another process's appends.
    let written = replacement.length;
    let renamed = false;
    let outOfOrder = 0;
    const noteWrite = (into: number, bytes: number): void => {
      if (renamed && fstatSync(into).size > written) outOfOrder += bytes;
      written += bytes;
      carried += bytes;
    };
    // "shrank": the original was rewritten under us, not appended to.
    const copyNewSync = (from: number, into: number): "copied" | "none" | "shrank" => {
      const size = fstatSync(from).size;
      if (size < carried) return "shrank";
      if (size === carried) return "none";
      const chunk = Buffer.alloc(size - carried);
      const bytesRead = readSync(from, chunk, 0, chunk.length, carried);
      noteWrite(into, bytesRead);
      writeSync(into, chunk, 0, bytesRead);
      return "copied";
    };
    const copyNew = async (into: fsp.FileHandle): Promise<"copied" | "none" | "shrank"> => {
      const size = (await source.stat()).size;
      if (size < carried) return "shrank";
      if (size === carried) return "none";
      const chunk = Buffer.alloc(size - carried);
      const { bytesRead } = await source.read(chunk, 0, chunk.length, carried);
      // The look at the new file's size and the write run in one synchronous step, as in copyNewSync.
      noteWrite(into.fd, bytesRead);
      writeSync(into.fd, chunk, 0, bytesRead);
      return "copied";
    };
    temp = await writeSyncedTemp(file, replacement);
    const out = await fsp.open(temp, "a");
    let lateWriter: number | undefined;
    try {
      let still = false;
      for (let round = 0; round < MAX_CATCH_UP_ROUNDS && !still; round++) {
        const copied = await copyNew(out);
        if (copied === "shrank") return { replaced: false, reason: "rewritten" };
        still = copied === "none";
      }
      if (!still) return { replaced: false, reason: "unsettled" };
      await out.chmod(inode.mode & 0o777);
      const [writer] = writersOf(inode, dir);
      if (writer !== undefined) return { replaced: false, reason: "held", writer };
      // The last copy, the rename and the first copy after it run in one synchronous step: an append racing them can
      // land between them only in those microseconds, not across awaits, where it would be carried after lines
      // appended to the new file meanwhile.
      if (copyNewSync(source.fd, out.fd) === "shrank") return { replaced: false, reason: "rewritten" };
      renameSync(temp, file);
      renamed = true;
      temp = undefined;
      copyNewSync(source.fd, out.fd);
      lateWriter = await carryLateAppends(
        () => copyNew(out),
        () => writersOf(inode, dir),
      );
      await out.sync();
    } finally {
      await out.close();
    }
    return {
      replaced: true,
      carried: carried - readBytes,
      ...(lateWriter !== undefined ? { lateWriter } : {}),
      ...(outOfOrder > 0 ? { outOfOrder } : {}),
    };
  } finally {
    await source.close();
    if (temp) await fsp.rm(temp, { force: true }).catch(() => undefined);
  }
}

/**
 * After the rename: appends that raced it reached the old inode, and a writer that opened the file in the instant
 * before it still writes there. Copies them to the new file, in order, until no process holds the old inode and it
 * has been quiet for {@link LATE_QUIET_MS}. Resolves to a writer still holding it after {@link LATE_WRITER_MAX_MS}.
 */
async function carryLateAppends(
  copyNew: () => Promise<"copied" | "none" | "shrank">,
  writers: () => number[],
): Promise<number | undefined> {
  const start = Date.now();
  let quietSince = start;
  let scannedAt = -Infinity;
  let holders: number[] = [];
  for (;;) {
    const copied = await copyNew();
    // Rewritten after the rename: whatever it holds now is no append of the file's.
    if (copied === "shrank") return undefined;
    const now = Date.now();
    if (copied === "copied") quietSince = now;
    // Looked for once the inode has been quiet, and again while a writer holds it: the looks only decide when to stop.
    if (now - quietSince >= LATE_QUIET_MS && now - scannedAt >= LATE_SCAN_MS) {
      scannedAt = Date.now();
      holders = writers();
    }
    // Done once a look that started after the last copied byte found no writer, and the inode has been quiet; what a
    // writer wrote before it closed, during that look, is copied last.
    if (holders.length === 0 && scannedAt >= quietSince && now - quietSince >= LATE_QUIET_MS) {
      while ((await copyNew()) === "copied");
      return undefined;
    }
    if (now - start > LATE_WRITER_MAX_MS) return holders[0];
    await new Promise((resolve) => setTimeout(resolve, LATE_POLL_MS));
  }
}
