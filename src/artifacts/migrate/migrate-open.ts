import { LedgerError } from "../../errors.js";
import type { StoreBackend } from "../backends/backend-types.js";
import { createFileBackend } from "../backends/file-backend.js";
import type { BackendKind, StoreBackendSettings } from "../backends/backend-settings.js";
import { openBucket } from "../backends/configured-backend.js";
import { META_PREFIX } from "../format/store-keys.js";

/** Which way a migration goes: to the bucket (its backend's name) or to the local file store (`file`). */
export type MigrateDirection = BackendKind;

/** The two ends of one agent's migration. */
export interface MigrationEnds {
  source: StoreBackend;
  target: StoreBackend;
  /** The bucket end (source or target). */
  bucket: StoreBackend;
}

/** Options of {@link openMigrationEnds}. */
export interface MigrationEndsOptions {
  /** `--to`: the bucket (its backend's name) or the local file store (`file`). */
  to: MigrateDirection;
  /** The agent's local artifact folder. */
  root: string;
  /** The agent's path segment under the bucket prefix (`encodeSegment(agentId)`). */
  agentSegment: string;
  /** The `store` config: its `s3` section names the bucket, whatever `backend` says now. */
  settings: StoreBackendSettings;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * The local file store and the configured bucket of one agent (the bucket
 * directly, not behind the spool: a migrated object counts only once the
 * bucket has it), as source and target for `to`. Throws `config_invalid` when
 * no bucket is configured.
 */
export function openMigrationEnds(options: MigrationEndsOptions): MigrationEnds {
  const bucket = bucketBackend(options.settings, `agents/${options.agentSegment}`, options.env);
  const local = createFileBackend(options.root);
  return options.to === "file" ? { source: bucket, target: local, bucket } : { source: local, target: bucket, bucket };
}

/**
 * The agent segments that have objects in the bucket (`<prefix>/agents/<segment>/...`). Walks every key: for a
 * one-off migration, not for a turn.
 */
export async function listBucketAgentSegments(
  settings: StoreBackendSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const agents = bucketBackend(settings, "agents", env);
  await assertBucketAnswers(agents, settings, "");
  const found = new Set<string>();
  for await (const o of agents.list("")) found.add(o.key.split("/")[0] ?? "");
  found.delete("");
  return [...found].sort();
}

/**
 * Lists a page of the bucket before any copy, so that a missing bucket, missing or refused credentials and an
 * unreachable endpoint each fail at once with their own clear error.
 */
export async function assertBucketAnswers(
  bucket: StoreBackend,
  settings: StoreBackendSettings,
  prefix: string = META_PREFIX,
): Promise<void> {
  const s3 = settings.s3;
  try {
    for await (const o of bucket.list(prefix)) {
      void o;
      break;
    }
  } catch (err) {
    const cause = (err as { cause?: { name?: string; Code?: string; message?: string } }).cause;
    const what = cause?.Code ?? cause?.name ?? "";
    const env = s3 ? `\`$${s3.accessKeyIdEnv}\` and \`$${s3.signingKeyEnv}\`` : "the environment";
    if (what === "CredentialsProviderError")
      throw new LedgerError(
        "config_invalid",
        `Expected S3 credentials in ${env} (or the AWS SDK's own chain: profile, instance role), got none`,
        { cause: err },
      );
    if (what === "NoSuchBucket")
      throw new LedgerError(
        "config_invalid",
        `Expected the bucket \`${s3?.bucket}\` (store.s3.bucket) to exist, got NoSuchBucket; create it first`,
        { cause: err },
      );
    if ((err as { code?: string }).code === "artifact_forbidden")
      throw new LedgerError(
        "artifact_forbidden",
        `Expected the credentials in ${env} to be allowed to list ${bucket.location}, got refused (${what || "HTTP 403"}); check the key pair and its permissions`,
        { cause: err },
      );
    throw new LedgerError(
      "io_failed",
      `Expected the bucket ${bucket.location} at ${s3?.endpoint ?? "AWS S3"} to answer, got ${cause?.message ?? what ?? (err as Error).message}; is the endpoint reachable?`,
      { cause: err },
    );
  }
}

function bucketBackend(settings: StoreBackendSettings, under: string, env: NodeJS.ProcessEnv = process.env) {
  if (!settings.s3)
    throw new LedgerError(
      "config_invalid",
      "Expected `store.s3` (at least `bucket`) in the plugin config to migrate to or from a bucket, got none; add it (store.backend may stay `file` until the migration is done)",
    );
  return openBucket(settings, under, { env });
}
