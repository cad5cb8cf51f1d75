/**
 * The backends the `store.backend` setting may name: the local file store, and a bucket behind a local spool. The
 * one switch between them is this module (what opens each: `configured-backend.ts`); config/schema.ts lists the
 * same names.
 */
export const BACKEND_KINDS = ["s3", "file"] as const;

/** A name `store.backend` may take. */
export type BackendKind = (typeof BACKEND_KINDS)[number];

/** Where an agent's artifacts live (the `store` section of the config). */
export interface StoreBackendSettings {
  backend: BackendKind;
  s3?: {
    endpoint?: string;
    bucket: string;
    prefix: string;
    region: string;
    pathStyle: boolean;
    /** Name of the environment variable with the access key id. */
    accessKeyIdEnv: string;
    /** Name of the environment variable with the secret access key. */
    signingKeyEnv: string;
    timeoutMs: number;
    /** Objects written less than this long ago are never removed by gc. @default 86400000 */
    gcGraceMs?: number;
    /** A gateway silent for this long blocks every removal. @default 604800000 */
    gatewayStaleMs?: number;
    /** Not in the config: tests shorten the cite lag of a shared gc. @default DEFAULT_CITE_LAG_MS */
    citeLagMs?: number;
  };
  spoolBytes: number;
  cacheBytes: number;
}

/** True when the configured store keeps its objects off this disk (a bucket, behind a local spool and cache). */
export function isRemoteStore(settings: StoreBackendSettings): boolean {
  return settings.backend === "s3" && settings.s3 !== undefined;
}
