import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, it } from "vitest";
import { createS3Backend, type S3BackendOptions } from "../../src/artifacts/backends/s3-backend.js";
import type { StoreBackend } from "../../src/artifacts/backends/backend-types.js";
import {
  openArtifactStore,
  type OpenedStore,
  type OpenStoreOptions,
  type StoreBackendSettings,
} from "../../src/artifacts/index.js";
import { CEPH_INSTALL_COMMAND, cephAvailable, createRgwBucket, startCephRgw, type CephRgw } from "./ceph-rgw.js";

/** A throwaway RGW shared by the tests of one file, with one bucket. */
export interface RgwFixture {
  rgw: CephRgw;
  bucket: string;
  /** Backend options on the fixture's bucket under `prefix` (explicit credentials, path style). */
  options(prefix: string, extra?: Partial<S3BackendOptions>): S3BackendOptions;
  /** An S3 backend on a fresh prefix of the bucket. */
  backend(extra?: Partial<S3BackendOptions>): Promise<StoreBackend>;
  /** The credentials as the environment variables {@link settings} and {@link pluginStore} name (`KEY`, `SECRET`). */
  env(): { KEY: string; SECRET: string };
  /**
   * Resolved store settings on the fixture's bucket under `prefix`: 64 MiB spool and cache, a 10 s deadline, and a gc
   * that removes at once (no grace, no cite lag, a gateway stale after an hour); `overrides` replace any of them.
   */
  settings(prefix: string, overrides?: StoreSettingsOverrides): StoreBackendSettings;
  /** The plugin config's `store` section on the fixture's bucket under `prefix`, as an operator writes it. */
  pluginStore(prefix: string, s3?: Record<string, unknown>): { backend: "s3"; s3: Record<string, unknown> };
  /** A gateway's store for agent `main` at `root` on `settings`, with the fixture's credentials ({@link env}). */
  gateway(root: string, settings: StoreBackendSettings, extra?: Pick<OpenStoreOptions, "chunkBytes">): OpenedStore;
}

/** What a test changes in {@link RgwFixture.settings}. */
export interface StoreSettingsOverrides extends Partial<Omit<StoreBackendSettings, "s3" | "backend">> {
  s3?: Partial<NonNullable<StoreBackendSettings["s3"]>>;
}

/** Whether this run must have Ceph (CI sets it): missing packages then fail the suite instead of skipping it. */
const REQUIRED = process.env.LEDGER_REQUIRE_S3 === "1";

/**
 * Starts one throwaway Ceph RGW for the calling test file (and stops exactly
 * it after). Returns undefined, after saying so loudly, when the Ceph packages
 * are missing and the run does not require them: the caller then registers
 * no tests. With `LEDGER_REQUIRE_S3=1` (CI) missing packages fail the file.
 */
export function useCephRgw(label: string): (() => RgwFixture) | undefined {
  if (!cephAvailable()) {
    const message = `\n*** THE S3 SUITE DID NOT RUN (${label}): Ceph RGW is not installed. Install it with:\n***   ${CEPH_INSTALL_COMMAND}\n`;
    if (REQUIRED) {
      it("has the Ceph packages installed (LEDGER_REQUIRE_S3=1)", () => {
        throw new Error(message);
      });
    } else {
      process.stderr.write(message);
      it.skip(`S3 suite did not run: ${CEPH_INSTALL_COMMAND}`, () => undefined);
    }
    return undefined;
  }
  let fixture: RgwFixture | undefined;
  beforeAll(async () => {
    const rgw = await startCephRgw({ memstoreBytes: 768 * 1024 * 1024 });
    const bucket = `ledger-${randomBytes(4).toString("hex")}`;
    const credentials = { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey };
    await createRgwBucket(rgw, bucket);
    const options = (prefix: string, extra: Partial<S3BackendOptions> = {}): S3BackendOptions => ({
      endpoint: rgw.endpoint,
      region: rgw.region,
      bucket,
      prefix,
      pathStyle: true,
      credentials,
      timeoutMs: 10_000,
      partBytes: 5 * 1024 * 1024,
      ...extra,
    });
    const env = () => ({ KEY: rgw.accessKeyId, SECRET: rgw.secretAccessKey });
    fixture = {
      rgw,
      bucket,
      options,
      backend: async (extra) => createS3Backend(options(`t-${randomBytes(6).toString("hex")}`, extra)),
      env,
      settings: (prefix, overrides = {}) => ({
        backend: "s3",
        spoolBytes: 64 * 1024 * 1024,
        cacheBytes: 64 * 1024 * 1024,
        ...overrides,
        s3: {
          endpoint: rgw.endpoint,
          bucket,
          prefix,
          region: rgw.region,
          pathStyle: true,
          accessKeyIdEnv: "KEY",
          signingKeyEnv: "SECRET",
          timeoutMs: 10_000,
          gcGraceMs: 0,
          gatewayStaleMs: 3_600_000,
          citeLagMs: 0,
          ...overrides.s3,
        },
      }),
      gateway: (root, settings, extra = {}) =>
        openArtifactStore({ root, settings, agentSegment: "main", env: env(), ...extra }),
      pluginStore: (prefix, s3 = {}) => ({
        backend: "s3",
        s3: {
          endpoint: rgw.endpoint,
          bucket,
          prefix,
          pathStyle: true,
          accessKeyIdEnv: "KEY",
          signingKeyEnv: "SECRET",
          ...s3,
        },
      }),
    };
  }, 120_000);
  afterAll(async () => {
    await fixture?.rgw.stop();
  });
  return () => {
    if (!fixture) throw new Error("useCephRgw: the gateway runs only while this file's tests do");
    return fixture;
  };
}
