// Module hooks: Node 24 strips TypeScript types natively; this maps the sources' `.js`
// import specifiers to the `.ts` files beside them, so the demo, benches and test
// workers run the working tree's sources without a build.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Resolves a relative `.js` import from a `.ts` module to the `.ts` file when it exists. */
export async function resolve(specifier, context, next) {
  if (
    specifier.endsWith(".js") &&
    (specifier.startsWith(".") || specifier.startsWith("/")) &&
    context.parentURL?.endsWith(".ts")
  ) {
    const candidate = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(fileURLToPath(candidate))) return next(candidate.href, context);
  }
  return next(specifier, context);
}
