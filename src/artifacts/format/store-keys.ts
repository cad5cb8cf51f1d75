import { TEMP_PREFIX } from "../../fs/atomic-write.js";

/** Key prefix of every blob. */
export const BLOB_PREFIX = "blobs/sha256/";
/** Key prefix of every meta object. */
export const META_PREFIX = "meta/sha256/";

/** Fan-out `ab/cd/` of a digest: keeps any one folder (or listing page) small. */
function fanout(hex: string): string {
  return `${hex.slice(0, 2)}/${hex.slice(2, 4)}/`;
}

/** Key of the blob of `hex` (a parsed, validated digest). */
export function blobKey(hex: string): string {
  return `${BLOB_PREFIX}${fanout(hex)}${hex}`;
}

/** Key of the meta of `hex`. */
export function metaKey(hex: string): string {
  return `${META_PREFIX}${fanout(hex)}${hex}.json`;
}

/** The last segment of a key. */
export function keyName(key: string): string {
  return key.slice(key.lastIndexOf("/") + 1);
}

/** The digest a blob key names; undefined for anything else (temp files included). */
export function hexOfBlobKey(key: string): string | undefined {
  const name = keyName(key);
  return key.startsWith(BLOB_PREFIX) && /^[0-9a-f]{64}$/.test(name) ? name : undefined;
}

/** The digest a meta key names; undefined for anything else. */
export function hexOfMetaKey(key: string): string | undefined {
  const name = keyName(key);
  return key.startsWith(META_PREFIX) && /^[0-9a-f]{64}\.json$/.test(name) ? name.slice(0, 64) : undefined;
}

/** True when the key names a temp file an interrupted write may have left. */
export function isTempKey(key: string): boolean {
  return keyName(key).startsWith(TEMP_PREFIX);
}
