/** Library surface for tests, benches and embedders (the plugin entry is the default export). */
export { createEngine, type LedgerEngine } from "./engine/create-engine.js";
export { ENGINE_ID, ENGINE_INFO } from "./host/engine-info.js";
export { createLedgerRuntime, type LedgerRuntime } from "./runtime/ledger-runtime.js";
export { parseConfig, resolveAgentSettings } from "./config/parse-config.js";
export { configSchema, type LedgerConfig, type LedgerConfigInput } from "./config/schema.js";
export { LedgerError, type LedgerErrorCode } from "./errors.js";
export { planWindow } from "./window/planner.js";
