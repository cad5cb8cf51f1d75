import path from "node:path";
import { useTempDir } from "../../test/support/temp-dir.js";
import { describeStoreConformance } from "../../test/support/store-conformance.js";
import { createFileBackend } from "./backends/file-backend.js";
import { createTieredBackend } from "./backends/tiered-backend.js";

const tmp = useTempDir("ledger-conformance-");

describeStoreConformance("file", async () => {
  const root = path.join(tmp(), "artifacts");
  return { backend: createFileBackend(root), root };
});

describeStoreConformance("spool in front of a file remote", async () => {
  const root = path.join(tmp(), "artifacts");
  const backend = createTieredBackend({
    root,
    remote: createFileBackend(path.join(tmp(), "remote")),
    cacheWholeMaxBytes: 1024,
  });
  return {
    backend,
    root,
    close: async () => {
      await backend.drain();
      await backend.close();
    },
  };
});
