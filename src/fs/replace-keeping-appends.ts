import { promises as fsp } from "node:fs";
import { writeSyncedTemp } from "./atomic-write.js";

/** Catch-up rounds before giving up on a file that never holds still. */
const MAX_CATCH_UP_ROUNDS = 10_000;
/** How long the old inode must stay quiet after the rename before no late append is expected. */
const LATE_QUIET_MS = 50;
/** Pause between looks at the old inode after the rename. */
const LATE_POLL_MS = 5;

/**
 * Replaces `file` with `replacement` (a rewrite of its first `readBytes` bytes), carrying over every byte the host
 * appended since: `original` is a hard link to the file's inode, so whatever the host appends before the
 * rename is in it. The replacement is written and synced once; then the new tail is copied over in small reads until
 * the inode has not grown since the last look, and the rename follows at once. Bytes that still reach the old inode
 * in that instant, or from a writer that opened it just before, are appended to the new file after it (the old inode
 * is watched until quiet for {@link LATE_QUIET_MS}; a writer that holds it open longer can still lose its bytes).
 * Resolves to the bytes carried over, or `undefined` (nothing replaced) when the file shrank (rewritten, not
 * appended to) or never held still.
 */
export async function replaceKeepingAppends(
  file: string,
  original: string,
  replacement: Uint8Array,
  readBytes: number,
): Promise<number | undefined> {
  const source = await fsp.open(original, "r");
  let temp: string | undefined;
  try {
    let carried = readBytes;
    // "shrank": the original was rewritten under us, not appended to.
    const copyNew = async (into: fsp.FileHandle | string): Promise<"copied" | "none" | "shrank"> => {
      const size = (await source.stat()).size;
      if (size < carried) return "shrank";
      if (size === carried) return "none";
      const chunk = Buffer.alloc(size - carried);
      const { bytesRead } = await source.read(chunk, 0, chunk.length, carried);
      const bytes = chunk.subarray(0, bytesRead);
      if (typeof into === "string") await fsp.appendFile(into, bytes);
      else await into.write(bytes);
      carried += bytesRead;
      return "copied";
    };
    temp = await writeSyncedTemp(file, replacement);
    const out = await fsp.open(temp, "a");
    let still = false;
    try {
      for (let round = 0; round < MAX_CATCH_UP_ROUNDS && !still; round++) {
        const copied = await copyNew(out);
        if (copied === "shrank") return undefined;
        still = copied === "none";
      }
      if (!still) return undefined;
      await out.chmod((await source.stat()).mode & 0o777);
      await fsp.rename(temp, file);
      temp = undefined;
      // Appends that raced the rename went to the old inode: add them to the new file, in order. A writer that
      // opened the old path just before the rename may write a moment later (appendFile opens, then writes), so
      // the old inode is watched until it has been quiet for LATE_QUIET_MS.
      let quietSince = Date.now();
      for (let late = 0; late < MAX_CATCH_UP_ROUNDS && Date.now() - quietSince < LATE_QUIET_MS; late++) {
        const copied = await copyNew(file);
        if (copied === "shrank") return undefined;
        if (copied === "copied") quietSince = Date.now();
        else await new Promise((resolve) => setTimeout(resolve, LATE_POLL_MS));
      }
      await out.sync();
    } finally {
      await out.close();
    }
    return carried - readBytes;
  } finally {
    await source.close();
    if (temp) await fsp.rm(temp, { force: true }).catch(() => undefined);
  }
}
