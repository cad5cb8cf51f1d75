/**
 * What a storage backend of the artifact store must do, and nothing more:
 * create an object once under a key, read a byte range, describe, list and
 * delete objects. The chunked blob format, its verification, meta, dedup,
 * gc and every `read` / `tryRead` twin live above this interface (see
 * `store-core.ts`), so a backend never decodes or checks content.
 *
 * Keys are relative, `/`-separated and made only of `[a-z0-9._-]` segments
 * (`blobs/sha256/ab/cd/<hex>`, `meta/sha256/ab/cd/<hex>.json`).
 */
export interface StoreBackend {
  /** Short name for messages and status (`file`, `s3`). */
  readonly kind: string;
  /** Where the objects live, for messages (a folder, or `s3://bucket/prefix`); never holds a credential. */
  readonly location: string;
  /**
   * Creates `key` with `body` unless an object is already there: never replaces one, and a reader never sees a
   * partial object. True when this call created it.
   */
  putOnce(key: string, body: PutBody): Promise<boolean>;
  /**
   * `length` bytes of `key` from `offset` (fewer only at the end; the rest of the object when `length` is
   * undefined); undefined when there is no such object.
   */
  getRange(key: string, offset: number, length?: number): Promise<Buffer | undefined>;
  /** Size and age of `key`; undefined when there is no such object. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  /** Removes `key`; false when there was nothing to remove. */
  delete(key: string): Promise<boolean>;
}

/** What a backend stores: bytes in memory, or a finished local file (streamed, never read whole into memory). */
export type PutBody = { bytes: Uint8Array } | { file: string; size: number };

/** One stored object. */
export interface ObjectInfo {
  key: string;
  size: number;
  /** Last modification (for a create-once object: its creation), epoch ms. */
  modifiedMs: number;
}

const KEY = /^[a-z0-9._-]+(\/[a-z0-9._-]+)*$/;

/** True when `key` is a well-formed backend key (no empty, `.` or `..` segment, no absolute path). */
export function isBackendKey(key: string): boolean {
  return KEY.test(key) && !key.split("/").some((s) => s === "." || s === "..");
}
