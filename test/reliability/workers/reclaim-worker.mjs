// A reclaim the parent SIGKILLs part-way: writes its marker, then reclaims one transcript's superseded branches and
// exits. The parent kills it once its link beside the transcript appears, after a seeded delay.
import { writeFileSync } from "node:fs";
import { createArtifactStore } from "../../../src/artifacts/index.ts";
import { reclaimJsonlBranches } from "../../../src/maintenance/jsonl-reclaim.ts";

const { file, storeRoot, agentDir, marker } = JSON.parse(process.argv[2]);
const store = createArtifactStore({ root: storeRoot });
writeFileSync(marker, String(process.pid));
const result = await reclaimJsonlBranches(file, {
  store,
  agentDir,
  origin: { agentId: "main", sessionKey: "agent:main:killed" },
});
writeFileSync(`${marker}.done`, JSON.stringify(result));
