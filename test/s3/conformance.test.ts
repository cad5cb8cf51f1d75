import { describe, expect, it } from "vitest";
import { probeRemoteStore } from "../../src/artifacts/index.js";
import { useSharedTempDir } from "../support/temp-dir.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { describeStoreConformance } from "../support/store-conformance.js";

describe("the S3 backend against a throwaway Ceph RGW", () => {
  const rgw = useCephRgw("store conformance");
  const tmp = useSharedTempDir("ledger-s3-conformance-");
  let n = 0;
  if (!rgw) return;
  describeStoreConformance("s3 (Ceph RGW)", async () => ({
    backend: await rgw().backend(),
    root: `${tmp()}/local-${n++}`,
  }));

  it("doctor's probe writes, reads and deletes with good credentials, and names the failure without the secret", async () => {
    const settings = (secretEnv: string) => ({
      backend: "s3" as const,
      spoolBytes: 1024 ** 3,
      cacheBytes: 1024 ** 3,
      s3: {
        endpoint: rgw().rgw.endpoint,
        bucket: rgw().bucket,
        prefix: "probe",
        region: "us-east-1",
        pathStyle: true,
        accessKeyIdEnv: "KEY_ID",
        signingKeyEnv: secretEnv,
        timeoutMs: 5_000,
      },
    });
    const env = { KEY_ID: rgw().rgw.accessKeyId, GOOD: rgw().rgw.secretAccessKey, BAD: "not-the-secret-0123456789" };
    expect(await probeRemoteStore(settings("GOOD"), env)).toMatchObject({ ok: true });
    const bad = await probeRemoteStore(settings("BAD"), env);
    expect(bad).toMatchObject({ ok: false });
    expect(bad?.message).toMatch(/^write failed: /);
    expect(JSON.stringify(bad)).not.toContain(env.BAD);
    expect(JSON.stringify(bad)).not.toContain(env.GOOD);
  });
});
