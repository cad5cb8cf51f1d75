import { promises as fsp } from "node:fs";
import path from "node:path";
import { isNotFound, LedgerError } from "../../errors.js";

/** Where one artifact lives inside a store root. */
export interface ArtifactPaths {
  /** `<root>/blobs/sha256/ab/cd/<hex>` */
  blob: string;
  /** `<root>/meta/sha256/ab/cd/<hex>.json` */
  meta: string;
}

/** The blob folder of a store root. */
export function blobsDir(root: string): string {
  return path.join(root, "blobs", "sha256");
}

/** The meta folder of a store root. */
export function metaDir(root: string): string {
  return path.join(root, "meta", "sha256");
}

/** Where a stash writes its temp file before the content's digest (and so its place) is known. */
export function incomingDir(root: string): string {
  return path.join(root, "incoming");
}

/** Paths of the artifact with digest `hex` (callers pass a parsed, validated digest). */
export function artifactPaths(root: string, hex: string): ArtifactPaths {
  const a = hex.slice(0, 2);
  const b = hex.slice(2, 4);
  return {
    blob: path.join(blobsDir(root), a, b, hex),
    meta: path.join(metaDir(root), a, b, `${hex}.json`),
  };
}

/**
 * Throws `path_outside_store` unless the real path of `target` (or of its
 * nearest existing ancestor) lies inside `realRoot`. Symlinks anywhere on the
 * way are resolved first, so a link out of the store is refused.
 */
export async function assertInsideStore(realRoot: string, target: string): Promise<void> {
  let probe = target;
  let suffix = "";
  for (;;) {
    try {
      const real = await fsp.realpath(probe);
      const full = suffix ? path.join(real, suffix) : real;
      if (full !== realRoot && !full.startsWith(realRoot + path.sep)) {
        throw new LedgerError(
          "path_outside_store",
          `Expected \`${target}\` to resolve inside the artifact store \`${realRoot}\`, got \`${full}\``,
        );
      }
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const parent = path.dirname(probe);
      if (parent === probe) throw err;
      suffix = suffix ? path.join(path.basename(probe), suffix) : path.basename(probe);
      probe = parent;
    }
  }
}
