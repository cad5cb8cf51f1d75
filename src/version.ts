/** The plugin's version (kept equal to package.json by a test). */
export const PLUGIN_VERSION = "0.1.0";
