/** Package entry: the OpenClaw plugin definition for context-ledger. */
export { default } from "./src/plugin.js";
export * from "./src/public-api.js";
