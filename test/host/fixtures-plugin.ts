import { promises as fsp } from "node:fs";
import path from "node:path";

/** Plugin and engine id of the throwaway test engine. */
export const TEST_ENGINE_ID = "naive-engine";

/**
 * How the test engine behaves:
 * - `naive`: assemble returns only the current turn (a small tail) and `compact()`
 *   reports success without shrinking anything (the engine that meets the reset loop);
 * - `passthrough`: assemble returns the host's messages; `compact()` says it did nothing.
 */
export type TestEngineMode = "naive" | "passthrough";

/** Options for {@link writeTestEnginePlugin}. */
export interface TestEnginePluginOptions {
  /** @default "naive" */
  mode?: TestEngineMode;
  /** Plugin and engine id. @default TEST_ENGINE_ID */
  id?: string;
}

/**
 * Writes a minimal context-engine plugin (manifest, package.json, one plain JS
 * entry) into `dir` and returns `dir`. It declares the 2026.9.x turn semantics
 * and `commitTurn`, so both hosts use it, and logs every lifecycle call to
 * `<OPENCLAW_STATE_DIR>/<id>/logs/events.jsonl` in the same shape as context-ledger.
 */
export async function writeTestEnginePlugin(dir: string, options: TestEnginePluginOptions = {}): Promise<string> {
  const id = options.id ?? TEST_ENGINE_ID;
  const mode = options.mode ?? "naive";
  await fsp.mkdir(dir, { recursive: true });
  const manifest = {
    id,
    name: `Test engine (${mode})`,
    description: "Throwaway context engine for real-host tests",
    version: "0.0.0",
    kind: "context-engine",
    configSchema: { type: "object", additionalProperties: true, properties: {} },
  };
  const pkg = { name: `${id}-plugin`, version: "0.0.0", type: "module", openclaw: { extensions: ["./index.js"] } };
  await fsp.writeFile(path.join(dir, "openclaw.plugin.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await fsp.writeFile(path.join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  await fsp.writeFile(path.join(dir, "index.js"), engineSource(id, mode));
  return dir;
}

function engineSource(id: string, mode: TestEngineMode): string {
  return `import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ID = ${JSON.stringify(id)};
const MODE = ${JSON.stringify(mode)};
const stateDir = process.env.OPENCLAW_STATE_DIR || path.join(os.homedir(), ".openclaw");
const logFile = path.join(stateDir, ID, "logs", "events.jsonl");

function log(op, fields = {}) {
  try {
    fs.mkdirSync(path.dirname(logFile), { recursive: true, mode: 0o700 });
    fs.appendFileSync(logFile, JSON.stringify({ ts: new Date().toISOString(), pid: process.pid, op, ...fields }) + "\\n", { mode: 0o600 });
  } catch {}
}

const estimate = (messages) => Math.ceil(JSON.stringify(messages ?? []).length / 4);

function tail(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].role === "user") return messages.slice(i);
  }
  return messages;
}

function createEngine(ctx) {
  log("factory", { hasArg: ctx !== undefined, keys: ctx ? Object.keys(ctx) : [] });
  const committed = new Set();
  return {
    info: {
      id: ID,
      name: "Test engine " + MODE,
      version: "0.0.0",
      ownsCompaction: true,
      transcriptSemantics: {
        currentTurnFence: "before-current-turn-entry-v1",
        turnAdvancementIdempotency: "atomic-idempotent-v1",
      },
    },
    async bootstrap(p) { log("bootstrap", { sessionKey: p?.sessionKey }); return { bootstrapped: true }; },
    async ingest(p) { log("ingest", { role: p?.message?.role }); return { ingested: true }; },
    async ingestBatch(p) { log("ingestBatch", { count: p?.messages?.length ?? 0 }); return { ingestedCount: p?.messages?.length ?? 0 }; },
    async afterTurn(p) { log("afterTurn", { messages: p?.messages?.length ?? 0 }); },
    async commitTurn(p) {
      const duplicate = committed.has(p?.advancementKey);
      committed.add(p?.advancementKey);
      log("commitTurn", { advancementKey: p?.advancementKey, messages: p?.messages?.length ?? 0, duplicate });
      return { status: duplicate ? "duplicate" : "committed" };
    },
    async assemble(p) {
      const messagesIn = p?.messages ?? [];
      const out = MODE === "naive" ? tail(messagesIn) : messagesIn;
      const estimatedTokens = estimate(out);
      log("assemble", { tokenBudget: p?.tokenBudget, messagesIn: messagesIn.length, messagesOut: out.length, estimatedTokens, rawTokens: estimate(messagesIn), hasRuntimeContext: p ? "runtimeContext" in p : false });
      return { messages: out, estimatedTokens };
    },
    async compact(p) {
      const tokens = p?.currentTokenCount ?? 0;
      log("compact", { force: p?.force, trigger: p?.trigger, compactionTarget: p?.compactionTarget, currentTokenCount: p?.currentTokenCount, tokenBudget: p?.tokenBudget });
      if (MODE === "naive") return { ok: true, compacted: true, result: { summary: "Compacted (naive test engine: nothing removed).", tokensBefore: tokens, tokensAfter: tokens } };
      return { ok: true, compacted: false, reason: "passthrough test engine does not compact" };
    },
    async maintain(p) {
      log("maintain", { hasRewrite: typeof p?.runtimeContext?.rewriteTranscriptEntries === "function", rewrittenEntries: 0, bytesFreed: 0 });
      return { changed: false, bytesFreed: 0, rewrittenEntries: 0 };
    },
    async dispose() { log("dispose"); },
  };
}

export default {
  id: ID,
  name: "Test engine " + MODE,
  description: "Throwaway context engine for real-host tests",
  register(api) {
    log("register");
    api.registerContextEngine(ID, createEngine);
  },
};
`;
}
