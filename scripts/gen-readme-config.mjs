// Rewrites the config reference block of docs/operator-guide.md from the zod schema (run after `npm run build`); the
// README keeps a short table of the common settings, which test/docs/drift.test.ts checks against the same schema.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { renderConfigReference } from "../dist/src/config/reference.js";
import { replaceBlock } from "../dist/src/config/doc-block.js";

for (const file of ["docs/operator-guide.md"]) {
  const url = new URL(`../${file}`, import.meta.url);
  if (!existsSync(url)) continue;
  const text = readFileSync(url, "utf8");
  const next = replaceBlock(text, renderConfigReference());
  if (next !== text) writeFileSync(url, next);
  console.log(`${file}: config reference ${next === text ? "unchanged" : "updated"}`);
}
