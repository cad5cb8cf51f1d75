import type { ArtifactMeta, ArtifactOrigin } from "../format/meta.js";
import type { Selector, Slice, SliceOptions } from "../selectors/selector-types.js";

/** What {@link ArtifactStore.stashStream} takes: a Node `Readable`, a web `ReadableStream`, any async iterable. */
export type StashSource = AsyncIterable<Uint8Array | string>;

/** What {@link ArtifactStore.stash} records about the content. */
export interface StashInfo {
  /** Free-form kind, e.g. `tool-output`, `schema`, `cli`. @default "artifact" */
  kind?: string;
  /** Detected format of the content (`json`, `log`, ...). @default "text" */
  format?: string;
  /** Who produced it. */
  origin?: ArtifactOrigin;
}

/** The answer of {@link ArtifactStore.stash}. */
export interface StashResult {
  handle: string;
  meta: ArtifactMeta;
  /** False when the content was already stored (dedup: nothing rewritten). */
  created: boolean;
}

/** Progress of a long store operation. */
export interface StoreProgress {
  phase: "scan" | "remove" | "verify" | "sweep";
  done: number;
  total: number;
}

/** Options of {@link ArtifactStore.gc}. */
export interface GcOptions {
  /** Unreferenced artifacts older than this are removed. @default undefined (no age limit) */
  maxAgeMs?: number;
  /** After age removal, oldest unreferenced artifacts go until stored bytes fit. @default undefined (no size limit) */
  maxTotalBytes?: number;
  /** Handles still in use (never removed). @default empty set */
  referenced?: ReadonlySet<string>;
  /**
   * When the scan that produced `referenced` began (epoch ms): a shared bucket dates this gateway's published set
   * from it. @default the time of the call
   */
  referencedScannedAtMs?: number;
  /**
   * Artifacts created less than this long ago are never removed (a stash in flight may not be cited on disk yet).
   * @default 0
   */
  keepNewerThanMs?: number;
  /**
   * Asked last for each candidate (by handle and its blob's last write, epoch ms): false keeps it. A shared bucket
   * uses it to require every gateway's word. @default undefined (every candidate may go)
   */
  mayRemove?: (handle: string, modifiedMs: number) => boolean;
  /**
   * Asked right before each batch of removals (not on a dry run): which of the batch must stay after all (a last
   * look at what other writers said), and a function called once the batch is removed. A shared bucket announces
   * the batch here. @default undefined (every chosen candidate goes)
   */
  beforeRemove?: (batch: ReadonlyArray<{ handle: string; modifiedMs: number }>) => Promise<RemovalBatchGate>;
  /** Report what would be removed without removing anything. @default false */
  dryRun?: boolean;
  /** Called as work progresses. */
  onProgress?: (progress: StoreProgress) => void;
}

/** The answer of {@link GcOptions.beforeRemove}. */
export interface RemovalBatchGate {
  /** Handles of the batch that stay. */
  keep: ReadonlySet<string>;
  /** Called once the rest of the batch is removed (or its removal failed). */
  done: () => Promise<void>;
}

/** One artifact gc removed (or would remove). */
export interface GcRemoval {
  handle: string;
  storedBytes: number;
  createdAt: string;
  reason: "expired" | "over-size";
}

/** The answer of {@link ArtifactStore.gc}. */
export interface GcReport {
  dryRun: boolean;
  removed: GcRemoval[];
  freedStoredBytes: number;
  keptCount: number;
  keptStoredBytes: number;
  /** Kept artifacts that are in `referenced`. */
  referencedKept: number;
  /** Stale temp files (older than a minute) removed or, in a dry run, found. */
  staleTempFiles: number;
  /** On a bucket shared by several gateways: who spoke, and who blocks every removal. */
  sharedBucket?: SharedGcSummary;
}

/** What a gc of a shared bucket heard from the gateways. */
export interface SharedGcSummary {
  /** This gateway's id. */
  gatewayId: string;
  /** Known gateways, with the time of their latest publication (null when they never published). */
  gateways: Array<{ id: string; publishedAt: string | null; handles: number }>;
  /** Gateways that keep every artifact until they publish or are retired. */
  blockedBy: Array<{ id: string; reason: "never-published" | "stale"; publishedAt: string | null }>;
  /** Candidates kept because some gateway cites them, has not published since their write, or they are in grace. */
  keptForGateways: number;
  graceMs: number;
  staleMs: number;
}

/** The answer of {@link ArtifactStore.verifyAll}. */
export interface VerifyReport {
  ok: string[];
  corrupt: Array<{ handle: string; reason: string }>;
  /** Meta files whose blob is missing. */
  orphanedMeta: string[];
  /** Blobs whose meta file is missing (still readable and verified). */
  orphanedBlobs: string[];
}

/** The answer of {@link ArtifactStore.stats}. */
export interface StoreStats {
  count: number;
  /** Sum of original sizes (from meta). */
  bytes: number;
  /** Sum of blob sizes on disk. */
  storedBytes: number;
}

/** What the store tells `onStoreFull` before refusing a stash. */
export interface StoreFullInfo {
  neededBytes: number;
  usedBytes: number;
  maxStoreBytes: number;
}

/** A content-addressed artifact store for one agent. */
export interface ArtifactStore {
  /** The store's local folder (stash temp files, gc epoch; the objects themselves with the file backend). */
  readonly root: string;
  /** Which backend holds the objects, and where (never a credential). */
  readonly backend: { kind: string; location: string };
  /**
   * The store's gc epoch: it changes whenever a gc (in any process) removed artifacts, so a caller that remembers
   * which handles it stored knows when to forget them. Synchronous: read once per assemble.
   */
  gcEpoch(): number;
  /** Stores `content` (strings as UTF-8); idempotent, deduplicated by SHA-256. */
  stash(content: string | Uint8Array, info?: StashInfo): Promise<StashResult>;
  /**
   * Stores what `source` yields (strings as UTF-8) in one pass: hashed,
   * counted and compressed chunk by chunk, never held whole in memory;
   * idempotent like {@link stash}.
   */
  stashStream(source: StashSource, info?: StashInfo): Promise<StashResult>;
  /**
   * Stores the bytes of the regular file `file` as {@link stashStream} does.
   * Throws `input_invalid` for a symlink, FIFO or other non-regular file,
   * `artifact_not_found` when there is no file.
   */
  stashFile(file: string, info?: StashInfo): Promise<StashResult>;
  /**
   * A selector's bounded slice of an artifact, reading and checking only the
   * chunks the selector looks at (`json` reads the whole text; an older-format
   * blob is read whole). Throws as {@link read} and as `selectSlice`.
   */
  select(handle: string, selector: Selector, options: SliceOptions): Promise<Slice>;
  /**
   * The verified original bytes; throws `artifact_not_found`, `artifact_corrupt`, `handle_invalid`,
   * `path_outside_store`.
   */
  read(handle: string): Promise<Buffer>;
  /** Like {@link read} but `undefined` when not found (other failures still throw). */
  tryRead(handle: string): Promise<Buffer | undefined>;
  /** {@link read} decoded as UTF-8. */
  readText(handle: string): Promise<string>;
  /**
   * The stored bytes decoded as far as they decode, NOT checked against the handle: for an operator looking at a
   * blob that fails verification, never for a model. Undefined when there is no blob.
   */
  readUnverified(handle: string): Promise<Buffer | undefined>;
  /** The meta of an artifact; throws `artifact_not_found`. */
  readMeta(handle: string): Promise<ArtifactMeta>;
  /** Like {@link readMeta} but `undefined` when not found. */
  tryReadMeta(handle: string): Promise<ArtifactMeta | undefined>;
  /** True when the blob exists (not verified). */
  has(handle: string): Promise<boolean>;
  /** Every artifact's meta, in digest order. */
  list(): AsyncIterable<ArtifactMeta>;
  /** Where the blob and meta of `handle` live, for messages (paths, or URLs of the backend). */
  locate(handle: string): { blob: string; meta: string };
  /** Removes blob and meta; false when there was nothing to remove. */
  remove(handle: string): Promise<boolean>;
  /** Removes unreferenced artifacts by age and total size; sweeps stale temp files. */
  gc(options?: GcOptions): Promise<GcReport>;
  /** Reads and verifies every blob. */
  verifyAll(options?: { onProgress?: (progress: StoreProgress) => void }): Promise<VerifyReport>;
  /** Counts and sizes. */
  stats(): Promise<StoreStats>;
  /**
   * What waits in the local spool to upload to a remote backend, read without the network; absent on the file
   * store (nothing ever waits).
   */
  pendingUploads?(): Promise<{ objects: number; bytes: number; lastError?: string }>;
}
