import { constants, promises as fsp } from "node:fs";
import { describeValue, isNotFound, LedgerError } from "../../errors.js";
import type { StashSource } from "./store-types.js";

/** Pieces of a stash source as bytes (strings as UTF-8). */
export async function* asByteStream(source: StashSource): AsyncGenerator<Uint8Array> {
  for await (const piece of source) {
    if (typeof piece === "string") yield Buffer.from(piece, "utf8");
    else if (piece instanceof Uint8Array) yield piece;
    else
      throw new LedgerError(
        "input_invalid",
        `Expected a stream of strings or bytes to stash, got a piece ${describeValue(piece)}`,
      );
  }
}

/**
 * Opens a file to stash: a regular file, not through a symlink. O_NONBLOCK
 * keeps a FIFO from blocking the open; it is then refused by type.
 */
export async function openSourceFile(file: string): Promise<fsp.FileHandle> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new LedgerError(
      isNotFound(err) ? "artifact_not_found" : "input_invalid",
      `Expected a readable regular file to stash at \`${file}\`, got ${code === "ELOOP" ? "a symlink" : (code ?? (err as Error).message)}`,
      { cause: err },
    );
  }
  const st = await handle.stat().catch(async (err: unknown) => {
    await handle.close();
    throw err;
  });
  if (!st.isFile()) {
    await handle.close();
    throw new LedgerError(
      "input_invalid",
      `Expected a regular file to stash at \`${file}\`, got ${st.isFIFO() ? "a FIFO" : st.isDirectory() ? "a directory" : "another kind of file"}`,
    );
  }
  return handle;
}

/** The file's bytes up to its end, in pieces of `size`. */
export async function* readFileChunks(handle: fsp.FileHandle, size: number): AsyncGenerator<Buffer> {
  for (let position = 0; ;) {
    const buf = Buffer.allocUnsafe(size);
    const { bytesRead } = await handle.read(buf, 0, size, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield bytesRead === size ? buf : buf.subarray(0, bytesRead);
  }
}
