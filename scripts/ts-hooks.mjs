// Resolve hook: lets Node 24 run this repo's TypeScript sources directly (type
// stripping is built in); `.js` specifiers that name a `.ts` file map to it.
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (specifier.endsWith(".js") && (specifier.startsWith(".") || specifier.startsWith("/"))) {
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
    throw err;
  }
}
