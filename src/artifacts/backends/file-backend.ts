import { constants, promises as fsp } from "node:fs";
import path from "node:path";
import { describeValue, isNotFound, LedgerError } from "../../errors.js";
import { ensureDir } from "../../fs/atomic-write.js";
import { isBackendKey, type ObjectInfo, type PutBody, type StoreBackend } from "./backend-types.js";
import { assertInsideStore } from "../format/blob-path.js";
import { createFileIfAbsent, linkIfAbsent, readdirOrEmpty } from "./store-io.js";

/**
 * The local-disk backend: a key is a file under `root`. Objects are created
 * through a fsynced temp file hard-linked into place (atomic, never replacing
 * one); nothing is read or made through a symlink or outside the root's real path.
 */
export function createFileBackend(root: string): StoreBackend {
  const absRoot = path.resolve(root);
  const madeDirs = new Set<string>();
  let realRoot: string | undefined;

  async function rootReal(create: boolean): Promise<string | undefined> {
    if (realRoot) return realRoot;
    if (create) await ensureDir(absRoot);
    try {
      realRoot = await fsp.realpath(absRoot);
      return realRoot;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  function fileOf(key: string): string {
    if (!isBackendKey(key))
      throw new LedgerError("path_outside_store", `Expected a store key of plain segments, got ${describeValue(key)}`);
    return path.join(absRoot, ...key.split("/"));
  }

  /** Makes `dir` if needed, checking it lies inside the store before (nothing made through a link) and after. */
  async function ensureInside(real: string, dir: string): Promise<void> {
    await assertInsideStore(real, dir);
    if (madeDirs.has(dir)) return;
    await ensureDir(dir);
    madeDirs.add(dir);
    await assertInsideStore(real, dir);
  }

  async function* walk(dir: string, prefix: string): AsyncGenerator<ObjectInfo> {
    for (const name of await readdirOrEmpty(dir)) {
      const file = path.join(dir, name);
      const st = await fsp.lstat(file).catch(() => undefined);
      if (!st) continue;
      const key = prefix + name;
      if (st.isDirectory()) yield* walk(file, `${key}/`);
      else if (st.isFile() && isBackendKey(key)) yield { key, size: st.size, modifiedMs: st.mtimeMs };
    }
  }

  return {
    kind: "file",
    location: absRoot,
    async putOnce(key: string, body: PutBody): Promise<boolean> {
      const target = fileOf(key);
      const real = (await rootReal(true)) as string;
      await ensureInside(real, path.dirname(target));
      if ("bytes" in body) return createFileIfAbsent(target, body.bytes);
      try {
        return await linkIfAbsent(body.file, target);
      } catch (err) {
        // Another file system: copy beside the target first, then link as usual.
        if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
        return createFileIfAbsent(target, await fsp.readFile(body.file));
      }
    },
    async getRange(key: string, offset: number, length?: number): Promise<Buffer | undefined> {
      const file = fileOf(key);
      const real = await rootReal(false);
      if (!real) return undefined;
      await assertInsideStore(real, file);
      let handle: fsp.FileHandle;
      try {
        handle = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        if ((err as NodeJS.ErrnoException).code === "ELOOP")
          throw new LedgerError("path_outside_store", `Expected a regular file at \`${file}\`, got a symlink`, {
            cause: err,
          });
        throw err;
      }
      try {
        const st = await handle.stat();
        if (!st.isFile())
          throw new LedgerError("artifact_corrupt", `Expected a regular file at \`${file}\`, got another kind of file`);
        const want = Math.max(0, Math.min(length ?? st.size, st.size - offset));
        const buf = Buffer.allocUnsafe(want);
        let got = 0;
        while (got < want) {
          const { bytesRead } = await handle.read(buf, got, want - got, offset + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        return got === want ? buf : buf.subarray(0, got);
      } finally {
        await handle.close();
      }
    },
    async head(key: string): Promise<ObjectInfo | undefined> {
      const file = fileOf(key);
      const real = await rootReal(false);
      if (!real) return undefined;
      await assertInsideStore(real, file);
      const st = await fsp.lstat(file).catch(() => undefined);
      return st?.isFile() ? { key, size: st.size, modifiedMs: st.mtimeMs } : undefined;
    },
    async *list(prefix: string): AsyncGenerator<ObjectInfo> {
      const real = await rootReal(false);
      if (!real) return;
      // Walk from the deepest folder the prefix names, then keep the keys that start with it.
      const cut = prefix.lastIndexOf("/") + 1;
      const dirKey = prefix.slice(0, cut);
      const dir = dirKey ? fileOf(dirKey.slice(0, -1)) : absRoot;
      await assertInsideStore(real, dir);
      for await (const info of walk(dir, dirKey)) if (info.key.startsWith(prefix)) yield info;
    },
    async delete(key: string): Promise<boolean> {
      const file = fileOf(key);
      const real = await rootReal(false);
      if (!real) return false;
      await assertInsideStore(real, file);
      try {
        await fsp.unlink(file);
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },
  };
}
