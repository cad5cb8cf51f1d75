/** The plugin's version (kept equal to package.json by a test). */
export const PLUGIN_VERSION = "0.1.0";

/** The plugin id, which is also the engine id in the context-engine slot. */
export const ENGINE_ID = "context-ledger";
