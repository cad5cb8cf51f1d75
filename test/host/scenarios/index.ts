/**
 * The registry of real-host scenarios: one line per scenario module, sorted by file
 * name (two branches adding lines merge by keeping both). Every `HostScenario` a module
 * exports, under any name, runs in the line files `test/host/line-<version>.test.ts`
 * on each host line and engine it lists (see `registry.ts`).
 */
export * as bigOutput from "./big-output.js";
export * as fetchBack from "./fetch-back.js";
export * as fixHolds424 from "./fix-holds-424.js";
export * as fixHolds96 from "./fix-holds-96.js";
export * as fullExecBackground from "./full-exec-background.js";
export * as fullExecFidelity from "./full-exec-fidelity.js";
export * as fullExecInTurn from "./full-exec-in-turn.js";
export * as fullExecOutput from "./full-exec-output.js";
export * as longSession from "./long-session.js";
export * as longSession128k from "./long-session-128k.js";
export * as longSession424 from "./long-session-424.js";
export * as longSession48k from "./long-session-48k.js";
export * as longSession64k from "./long-session-64k.js";
export * as longSessionAnswers from "./long-session-answers.js";
export * as memorySession from "./memory-session.js";
export * as operator from "./operator.js";
export * as resetLoop from "./reset-loop.js";
export * as resetLoopBites from "./reset-loop-bites.js";
export * as smoke from "./smoke.js";
export * as wireSession from "./wire-session.js";
