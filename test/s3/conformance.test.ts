import { describe } from "vitest";
import { useSharedTempDir } from "../support/temp-dir.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { describeStoreConformance } from "../support/store-conformance.js";

describe("the S3 backend against a throwaway Ceph RGW", () => {
  const rgw = useCephRgw("store conformance");
  const tmp = useSharedTempDir("ledger-s3-conformance-");
  let n = 0;
  if (rgw)
    describeStoreConformance("s3 (Ceph RGW)", async () => ({
      backend: await rgw().backend(),
      root: `${tmp()}/local-${n++}`,
    }));
});
