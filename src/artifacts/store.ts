import path from "node:path";
import { createFileBackend } from "./backends/file-backend.js";
import { createBackendStore, type ArtifactStoreOptions } from "./store-core.js";
import type { ArtifactStore } from "./store/store-types.js";

export type { ArtifactStoreOptions } from "./store-core.js";

/**
 * Creates the content-addressed store of one agent on local disk: blobs and
 * metas under `root` (the file backend), immutable once created and never
 * leaving the store's real path. See {@link createBackendStore} for the format.
 */
export function createArtifactStore(options: ArtifactStoreOptions): ArtifactStore {
  const root = path.resolve(options.root);
  return createBackendStore(createFileBackend(root), { ...options, root });
}
