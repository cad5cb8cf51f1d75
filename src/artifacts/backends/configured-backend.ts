import { LedgerError } from "../../errors.js";
import type { StoreBackend } from "./backend-types.js";
import { isRemoteStore, type BackendKind, type StoreBackendSettings } from "./backend-settings.js";
import { createS3Backend } from "./s3-backend.js";
import { readSpoolBacklog } from "./tiered-backend.js";

/** Options of {@link openBucket}. */
export interface OpenBucketOptions {
  /** Where credentials are read from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** A deadline per call shorter than the configured one. @default the configured `timeoutMs` */
  timeoutCapMs?: number;
  /** Attempts per request. @default the backend's own */
  maxAttempts?: number;
  /** Sends `AWS_SESSION_TOKEN` from `env` with the configured key pair. @default true */
  sessionToken?: boolean;
}

/**
 * The configured bucket, whatever `store.backend` says now, as a backend under `<prefix>/<under>`: credentials from
 * the environment variables the settings name, else the SDK's own chain; never written anywhere. Throws
 * `config_invalid` when no bucket is configured. Nothing is contacted until the backend is used.
 */
export function openBucket(
  settings: StoreBackendSettings,
  under: string,
  options: OpenBucketOptions = {},
): StoreBackend {
  const s3 = settings.s3;
  if (!s3)
    throw new LedgerError("config_invalid", "Expected `store.s3` (at least `bucket`) in the plugin config, got none");
  const env = options.env ?? process.env;
  const accessKeyId = env[s3.accessKeyIdEnv];
  const secretAccessKey = env[s3.signingKeyEnv];
  const sessionToken = options.sessionToken === false ? {} : { sessionToken: env.AWS_SESSION_TOKEN };
  return createS3Backend({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    prefix: `${s3.prefix}/${under}`,
    region: s3.region,
    pathStyle: s3.pathStyle,
    timeoutMs: options.timeoutCapMs === undefined ? s3.timeoutMs : Math.min(options.timeoutCapMs, s3.timeoutMs),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, ...sessionToken } } : {}),
  });
}

/** What waits in an agent's local spool to upload, and where it goes. */
export interface UploadBacklog {
  /** The configured backend's name. */
  backend: BackendKind;
  /** The bucket and prefix, for messages (never a credential). */
  location: string;
  objects: number;
  bytes: number;
}

/**
 * The upload backlog of the agent whose local artifact folder is `root`, read from that folder synchronously without
 * any network (status, doctor, and a gateway's start never wait on the bucket). Undefined for a store without a
 * spool (the file store).
 */
export function readUploadBacklog(settings: StoreBackendSettings, root: string): UploadBacklog | undefined {
  const where = uploadLocation(settings);
  if (!where) return undefined;
  const { objects, bytes } = readSpoolBacklog(root);
  return { ...where, objects, bytes };
}

/** Where a remote store uploads (`s3://bucket/prefix`), or undefined for the file store. */
export function uploadLocation(
  settings: StoreBackendSettings,
): Pick<UploadBacklog, "backend" | "location"> | undefined {
  const s3 = isRemoteStore(settings) ? settings.s3 : undefined;
  return s3 ? { backend: settings.backend, location: `s3://${s3.bucket}/${s3.prefix}` } : undefined;
}
