/**
 * The artifact store's one face: everything the rest of the plugin may use of `artifacts/`. Opening the configured
 * store, its types, handles and the typed-prefix lookup, selectors, migration and the operator's probes. What lies
 * behind it (blob paths and codecs, backends, the spool's layout, gc's bookkeeping) is private to this folder; the
 * import-graph test holds every module outside it to this file.
 */

// Opening a store.
export { openArtifactStore, type OpenedStore, type OpenStoreOptions } from "./open-store.js";
export { createArtifactStore, type ArtifactStoreOptions } from "./store.js";
export {
  BACKEND_KINDS,
  isRemoteStore,
  type BackendKind,
  type StoreBackendSettings,
} from "./backends/backend-settings.js";
export { readUploadBacklog, uploadLocation, type UploadBacklog } from "./backends/configured-backend.js";
export type {
  ArtifactStore,
  GcOptions,
  GcReport,
  StashInfo,
  StashResult,
  StoreProgress,
  StoreStats,
  VerifyReport,
} from "./store/store-types.js";
export type { GatewayRegistry } from "./gc/gateway-registry.js";
export { readArtifactTextSync } from "./format/verified-text-sync.js";
export { openSourceFile, readFileChunks } from "./store/stash-source.js";
export { STALE_TEMP_MS } from "./gc/store-gc.js";

// Handles, and what a person or a model types for one.
export {
  findHandles,
  firstHandle,
  formatHandle,
  HANDLE_LENGTH,
  HANDLE_PREFIX,
  handleForBytes,
  handlePattern,
  isHandle,
  parseHandle,
  sha256Hex,
  shortHandleOf,
} from "./format/handle.js";
export { listedHandles, parseHandleRef, resolveHandleRef, type HandleRef } from "./store/handle-prefix.js";
export { countLines, type ArtifactMeta, type ArtifactOrigin } from "./format/meta.js";

// Reading a slice.
export { parseSelector, selectSlice, type Selector, type Slice, type SliceOptions } from "./selectors/selectors.js";
export { grepLines } from "./selectors/grep-lines.js";
export { fmt } from "./selectors/line-windows.js";

// Moving a store between backends, and checking a bucket.
export { migrateArtifacts, type MigrateReport } from "./migrate/store-migrate.js";
export {
  assertBucketAnswers,
  listBucketAgentSegments,
  openMigrationEnds,
  type MigrateDirection,
} from "./migrate/migrate-open.js";
export { probeRemoteStore } from "./backends/remote-probe.js";
