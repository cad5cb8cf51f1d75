import { randomBytes } from "node:crypto";
import { errorMessage } from "../errors.js";
import type { StoreBackendSettings } from "./open-store.js";
import { createS3Backend } from "./s3-backend.js";

/** What {@link probeRemoteStore} found. */
export interface RemoteProbe {
  ok: boolean;
  location: string;
  /** What failed (write, read back, delete), or what passed, in words; never a credential. */
  message: string;
  ms: number;
}

/**
 * Checks that the configured bucket is reachable with the configured
 * credentials and permissions: writes a tiny object under
 * `<prefix>/doctor/`, reads it back, deletes it. Undefined for the file store.
 */
export async function probeRemoteStore(
  settings: StoreBackendSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RemoteProbe | undefined> {
  const s3 = settings.backend === "s3" ? settings.s3 : undefined;
  if (!s3) return undefined;
  const accessKeyId = env[s3.accessKeyIdEnv];
  const secretAccessKey = env[s3.signingKeyEnv];
  const backend = createS3Backend({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    prefix: `${s3.prefix}/doctor`,
    region: s3.region,
    pathStyle: s3.pathStyle,
    timeoutMs: Math.min(s3.timeoutMs, 10_000),
    maxAttempts: 2,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  });
  const started = Date.now();
  const key = `probe-${randomBytes(6).toString("hex")}`;
  const body = Buffer.from(`context-ledger doctor probe ${new Date(started).toISOString()}\n`);
  const step = async (what: string, run: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await run();
      return undefined;
    } catch (err) {
      return `${what} failed: ${errorMessage(err)}`;
    }
  };
  const failed =
    (await step("write", async () => {
      if (!(await backend.putOnce(key, { bytes: body }))) throw new Error("the probe key already existed");
    })) ??
    (await step("read back", async () => {
      const got = await backend.getRange(key, 0);
      if (!got?.equals(body)) throw new Error("the bytes read back differ from those written");
    })) ??
    (await step("delete", async () => {
      if (!(await backend.delete(key))) throw new Error("the probe object was gone before its delete");
    }));
  const ms = Date.now() - started;
  return failed
    ? { ok: false, location: backend.location, message: failed, ms }
    : { ok: true, location: backend.location, message: `write, read back and delete of a probe object passed`, ms };
}
