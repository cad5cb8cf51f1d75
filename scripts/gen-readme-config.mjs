// Rewrites the config reference block of README.md and docs/operator-guide.md from the zod schema (run after `npm run
// build`).
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { renderConfigReference } from "../dist/src/config/reference.js";
import { replaceBlock } from "../dist/src/config/doc-block.js";

for (const file of ["README.md", "docs/operator-guide.md"]) {
  const url = new URL(`../${file}`, import.meta.url);
  if (!existsSync(url)) continue;
  const text = readFileSync(url, "utf8");
  const next = replaceBlock(text, renderConfigReference());
  if (next !== text) writeFileSync(url, next);
  console.log(`${file}: config reference ${next === text ? "unchanged" : "updated"}`);
}
