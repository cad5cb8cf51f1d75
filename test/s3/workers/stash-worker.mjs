// A gateway's stashes that the parent SIGKILLs at a random instruction: stashes fresh outputs in a loop and records
// each handle only once the store returned it.
import { appendFileSync } from "node:fs";
import { openArtifactStore } from "../../../src/artifacts/index.ts";

const { root, settings, env, out } = JSON.parse(process.argv[2]);
const opened = openArtifactStore({ root, settings, agentSegment: "main", env });
for (let i = 0; ; i++) {
  const text = `crash output ${i} ${process.pid} ${"line\n".repeat(i % 40)}`;
  const { handle } = await opened.store.stash(text);
  appendFileSync(out, `${JSON.stringify({ handle, text })}\n`);
}
