/** The plugin's version (kept equal to package.json by a test). */
export const PLUGIN_VERSION = "0.1.0";

/** The plugin id, which is also the engine id in the context-engine slot. */
export const ENGINE_ID = "context-ledger";

/**
 * The `Symbol.for` key of process-wide state named `name`, for this plugin version only: the host evaluates the
 * plugin afresh on a hot reload, and a newer version in the same process must start from its own objects, never
 * from an older version's (whose shape or meaning may differ).
 */
export function processWideKey(name: string): symbol {
  return Symbol.for(`context-ledger.${name}@${PLUGIN_VERSION}`);
}

/** The file `npm pack` makes of this version (`<package name>-<version>.tgz`), which operators install from. */
export const PACKED_TARBALL = `openclaw-context-ledger-${PLUGIN_VERSION}.tgz`;
