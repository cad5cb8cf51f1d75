// `node --import ./scripts/register-ts.mjs file.ts` runs repo TypeScript on Node 24.
import { register } from "node:module";

register("./ts-hooks.mjs", import.meta.url);
