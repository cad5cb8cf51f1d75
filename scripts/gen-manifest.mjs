// Writes openclaw.plugin.json from the zod config schema (run after `npm run build`).
import { writeFileSync } from "node:fs";
import { buildManifest } from "../dist/src/config/manifest.js";

writeFileSync(new URL("../openclaw.plugin.json", import.meta.url), `${JSON.stringify(buildManifest(), null, 2)}\n`);
console.log("wrote openclaw.plugin.json");
