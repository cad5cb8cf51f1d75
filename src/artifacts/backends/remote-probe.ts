import { randomBytes } from "node:crypto";
import { errorMessage } from "../../errors.js";
import { isRemoteStore, type StoreBackendSettings } from "./backend-settings.js";
import { openBucket } from "./configured-backend.js";

/** What {@link probeRemoteStore} found. */
export interface RemoteProbe {
  ok: boolean;
  location: string;
  /** What failed (write, read back, delete), or what passed, in words; never a credential. */
  message: string;
  ms: number;
  /** The bucket answered that it does not exist. */
  missingBucket?: boolean;
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
  if (!isRemoteStore(settings)) return undefined;
  const backend = openBucket(settings, "doctor", { env, timeoutCapMs: 10_000, maxAttempts: 2, sessionToken: false });
  const started = Date.now();
  const key = `probe-${randomBytes(6).toString("hex")}`;
  const body = Buffer.from(`context-ledger doctor probe ${new Date(started).toISOString()}\n`);
  let missingBucket = false;
  const step = async (what: string, run: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await run();
      return undefined;
    } catch (err) {
      const cause = (err as { cause?: { name?: string; Code?: string } }).cause;
      missingBucket ||= cause?.name === "NoSuchBucket" || cause?.Code === "NoSuchBucket";
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
    ? { ok: false, location: backend.location, message: failed, ms, ...(missingBucket ? { missingBucket } : {}) }
    : { ok: true, location: backend.location, message: `write, read back and delete of a probe object passed`, ms };
}
