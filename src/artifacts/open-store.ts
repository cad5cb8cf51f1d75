import path from "node:path";
import { createGatewayRegistry, type GatewayRegistry } from "./gc/gateway-registry.js";
import { createGcGuard, type GcGuard } from "./gc/gc-guard.js";
import type { StoreBackend } from "./backends/backend-types.js";
import { isRemoteStore, type StoreBackendSettings } from "./backends/backend-settings.js";
import { openBucket } from "./backends/configured-backend.js";
import { runSharedGc } from "./gc/shared-gc.js";
import { createBackendStore, type ArtifactStoreOptions } from "./store-core.js";
import { createArtifactStore } from "./store.js";
import { blobKey, hexOfBlobKey, hexOfMetaKey, metaKey } from "./format/store-keys.js";
import type { ArtifactStore } from "./store/store-types.js";
import { createTieredBackend, type SpoolBacklog, type TieredBackend } from "./backends/tiered-backend.js";

/** Options of {@link openArtifactStore}. */
export interface OpenStoreOptions extends ArtifactStoreOptions {
  /** The configured backend; the file store when undefined. */
  settings?: StoreBackendSettings;
  /** The agent's path segment under the bucket prefix (`encodeSegment(agentId)`). */
  agentSegment: string;
  /** Where credentials are read from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Told when uploads start failing and when the spool drained. */
  onUploadState?: (state: { ok: boolean; pending: number; pendingBytes: number; error?: string }) => void;
}

/** An artifact store, and its spool when the objects live on a remote backend. */
export interface OpenedStore {
  store: ArtifactStore;
  /** Undefined for the file store. */
  spool?: Pick<TieredBackend, "backlog" | "drain" | "close">;
  /** The gateways sharing the bucket; undefined for the file store. */
  gateways?: GatewayRegistry;
  /** Resolves once this gateway's registration has been answered (a short-lived CLI waits). */
  settle?: () => Promise<void>;
}

/** Default of `store.s3.gcGraceMs`: a day. */
export const DEFAULT_GC_GRACE_MS = 86_400_000;
/** Default of `store.s3.gatewayStaleMs`: a week. */
export const DEFAULT_GATEWAY_STALE_MS = 7 * 86_400_000;

/**
 * How long a stashed handle may take to reach its gateway's state (the turn that stashed it may still run): a
 * gateway's published set speaks only for blobs written at least this long before its scan.
 */
export const DEFAULT_CITE_LAG_MS = 15 * 60_000;

/** After a reuse claim failed, stashes keep their own copy this long without asking the bucket again. */
const CLAIM_COOLDOWN_MS = 5_000;

/**
 * A reuse of the stored blob `hex` made safe against every gc: a durable touch first, then a look for a removal
 * announcement, then for the blob itself. A gc withdraws its announcement once it removed what it named, so a
 * writer that touched after the gc's last read finds either the announcement or the blob gone. True when the reuse
 * may count on the stored copy.
 */
function reuseClaim(
  registry: GatewayRegistry,
  guard: GcGuard,
  remote: StoreBackend,
): (hex: string) => Promise<boolean> {
  return async (hex) => {
    await registry.touch(hex);
    if (await guard.announced(hex)) return false;
    return (await remote.head(blobKey(hex))) !== undefined;
  };
}

/** Turn-path deadline of a remote call: a turn never waits longer for the bucket than this. */
const TURN_TIMEOUT_MS = 2_000;

/**
 * Opens one agent's artifact store on the configured backend: the file store,
 * or a bucket behind a bounded local spool and cache in the agent's local
 * folder (see `createTieredBackend`). Credentials come from the environment
 * variables the settings name, else from the SDK's own chain; they are never
 * written anywhere. Nothing is contacted until the store is used.
 */
export function openArtifactStore(options: OpenStoreOptions): OpenedStore {
  const { settings, agentSegment, env = process.env, onUploadState, ...storeOptions } = options;
  const s3 = settings && isRemoteStore(settings) ? settings.s3 : undefined;
  if (!settings || !s3) return { store: createArtifactStore(storeOptions) };
  const under = `agents/${agentSegment}`;
  const turnRemote = openBucket(settings, under, { env, timeoutCapMs: TURN_TIMEOUT_MS, maxAttempts: 1 });
  const bucket = openBucket(settings, under, { env });
  const root = path.resolve(storeOptions.root);
  const citeLagMs = s3.citeLagMs ?? DEFAULT_CITE_LAG_MS;
  const gateways = createGatewayRegistry({ backend: bucket, root, citeLagMs });
  const guard = createGcGuard(bucket);
  const turnClaim = reuseClaim(
    createGatewayRegistry({ backend: turnRemote, root, citeLagMs }),
    createGcGuard(turnRemote),
    turnRemote,
  );
  const uploadClaim = reuseClaim(gateways, guard, bucket);
  let claimsDownUntil = 0;
  const tiered = createTieredBackend({
    root,
    remote: turnRemote,
    uploader: bucket,
    spoolBytes: settings.spoolBytes,
    cacheBytes: settings.cacheBytes,
    onUploadState,
    // An upload refused as "already there" is a reuse like any other (a failure keeps the object spooled).
    claimExisting: async (key) => {
      const hex = hexOfBlobKey(key) ?? hexOfMetaKey(key);
      return hex === undefined || uploadClaim(hex);
    },
  });
  // The bucket has its own lifecycle: the local cap applies to the spool, not to the bucket.
  const inner = createBackendStore(tiered, {
    ...storeOptions,
    root,
    maxStoreBytes: undefined,
    onStoreFull: undefined,
    verifyWholeBeforeRanges: true,
    onDamaged: async (hex) => {
      await tiered.forgetLocal(blobKey(hex));
      await tiered.forgetLocal(metaKey(hex));
    },
    // A reuse counts only once its touch is in the bucket and no gc announced the blob's removal; otherwise (the
    // bucket unreachable, or a gc removing it) the stash keeps its own copy in the spool, and its upload claims it.
    claimReuse: async (hex) => {
      if (Date.now() < claimsDownUntil) return false;
      try {
        return await turnClaim(hex);
      } catch {
        claimsDownUntil = Date.now() + CLAIM_COOLDOWN_MS;
        return false;
      }
    },
  });
  // A gateway is known to every gc before what it stashes can be cited; in the background, so no turn waits for it.
  let registered: Promise<void> | undefined;
  const register = () => {
    registered ??= gateways.register().catch(() => {
      registered = undefined;
    });
  };
  const store: ArtifactStore = {
    ...inner,
    stash: (content, info) => (register(), inner.stash(content, info)),
    stashStream: (source, info) => (register(), inner.stashStream(source, info)),
    stashFile: (file, info) => (register(), inner.stashFile(file, info)),
    pendingUploads: () => tiered.loadedBacklog(),
    // Another gateway may cite what this one does not: removing from a shared bucket needs every gateway's word.
    gc: (gcOptions = {}) =>
      runSharedGc(
        {
          registry: gateways,
          guard,
          gc: (o) => inner.gc(o),
          graceMs: s3.gcGraceMs ?? DEFAULT_GC_GRACE_MS,
          staleMs: s3.gatewayStaleMs ?? DEFAULT_GATEWAY_STALE_MS,
          citeLagMs,
        },
        gcOptions,
      ),
  };
  const settle = async () => {
    await registered;
  };
  return { store, spool: tiered, gateways, settle };
}

export type { SpoolBacklog, StoreBackendSettings };
