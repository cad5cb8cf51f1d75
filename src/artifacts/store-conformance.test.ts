import path from "node:path";
import { useTempDir } from "../../test/support/temp-dir.js";
import { describeStoreConformance } from "../../test/support/store-conformance.js";
import { createFileBackend } from "./file-backend.js";

const tmp = useTempDir("ledger-conformance-");

describeStoreConformance("file", async () => {
  const root = path.join(tmp(), "artifacts");
  return { backend: createFileBackend(root), root };
});
