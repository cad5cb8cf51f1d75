import { promises as fsp } from "node:fs";
import path from "node:path";
import { LRUCache } from "lru-cache";
import { openArtifactStore, readUploadBacklog, type ArtifactStore } from "../artifacts/index.js";
import { createTokenCounter, type TokenCounter } from "../tokens/count-message.js";
import { encodingForModel } from "../tokens/encoder.js";
import { resolveAgentSettings } from "../config/parse-config.js";
import type { AgentSettings, LedgerConfig } from "../config/schema.js";
import { createLedgerLogger, type HostLogger } from "../host/logger.js";
import { compileRedactPatterns, redactSecrets, type RedactPatterns } from "../results/redact.js";
import { createEventLog } from "../state/event-log.js";
import {
  agentRoot,
  artifactRoot,
  decodeSegment,
  encodeSegment,
  eventLogPath,
  resolveLedgerRoot,
} from "../state/paths.js";
import { collectReferences } from "../state/reference-scan.js";
import { createViewWriter } from "../state/view-record.js";
import { createSessionCache } from "./session-cache.js";
import type { LastView, LedgerServices, RequestOverheadChars } from "./services.js";
import { createProcessWideRegistry, createStateRegistry, stateSlot } from "./state-slots.js";

const REQUEST_OVERHEAD = stateSlot("request-overhead", () => new Map<string, RequestOverheadChars>());

/** Options for {@link createLedgerRuntime}. */
export interface LedgerRuntimeOptions {
  config: LedgerConfig;
  /** The host's plugin logger; the console when absent. */
  hostLogger?: HostLogger;
  /** Environment for the state dir. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * The whole runtime: every service of {@link LedgerServices}. Only the engine's wiring holds it; everything else
 * takes the members it uses.
 */
export type LedgerRuntime = LedgerServices;

/** Sessions whose last view is kept for compact(). */
const MAX_LAST_VIEWS = 64;

/** On a full store, artifacts younger than this are kept by its gc (they may be cited by a prompt being built). */
const STORE_FULL_KEEP_NEWER_MS = 10 * 60_000;

/** Creates the process-wide runtime. Cheap: nothing is loaded until used. */
export function createLedgerRuntime(options: LedgerRuntimeOptions): LedgerRuntime {
  const { config } = options;
  const root = resolveLedgerRoot({ stateDir: config.stateDir, env: options.env });
  // Per settings object: parsed once per config, so its patterns array is stable.
  const compiledPatterns = new WeakMap<readonly string[], RedactPatterns>();
  const patternsOf = (settings: Pick<AgentSettings, "redaction">): RedactPatterns => {
    const sources = settings.redaction.patterns;
    let patterns = compiledPatterns.get(sources);
    if (!patterns) compiledPatterns.set(sources, (patterns = compileRedactPatterns(sources)));
    return patterns;
  };
  const redactWith = (settings: Pick<AgentSettings, "redaction">, text: string): string =>
    settings.redaction.enabled ? redactSecrets(text, patternsOf(settings)) : text;
  const redactLine = config.redaction.enabled ? (t: string) => redactWith(config, t) : undefined;
  const logger = createLedgerLogger(options.hostLogger, { level: config.logLevel, redact: redactLine });
  const events = createEventLog(eventLogPath(root), { redact: redactLine });
  const stores = new Map<string, ArtifactStore>();
  const counters = new Map<string, TokenCounter>();
  const settingsCache = new Map<string, AgentSettings>();
  const processWide = createProcessWideRegistry(root);
  const runtime: LedgerRuntime = {
    config,
    root,
    logger,
    events,
    sessions: createSessionCache(root, (p) => {
      logger.error(
        `session state problem ${p.code}: ${p.message} (${p.file})${p.keptAs ? `; the unreadable file is kept as ${p.keptAs}: inspect it, then delete it` : ""}`,
      );
      void events.write({ op: "state:problem", code: p.code, file: p.file, ...(p.keptAs ? { keptAs: p.keptAs } : {}) });
    }),
    views: createViewWriter(),
    lastViews: new LRUCache<string, LastView>({ max: MAX_LAST_VIEWS }),
    // Filled by the llm_input hook, read by assemble: both copies of a twice-loaded plugin see one map.
    requestOverhead: processWide.get(REQUEST_OVERHEAD),
    settings(agentId) {
      let s = settingsCache.get(agentId);
      if (!s) {
        s = resolveAgentSettings(config, agentId);
        settingsCache.set(agentId, s);
      }
      return s;
    },
    store(agentId) {
      let store = stores.get(agentId);
      if (!store) {
        const settings = this.settings(agentId);
        const views = this.lastViews;
        store = openArtifactStore({
          root: artifactRoot(root, agentId),
          settings: settings.store,
          agentSegment: encodeSegment(agentId),
          env: options.env,
          // Said once per failure streak and once on recovery: an operator sees the backlog start and end.
          onUploadState: (state) => {
            if (state.ok) logger.info(`artifact uploads for agent ${agentId} caught up (${state.pending} waiting)`);
            else
              logger.warn(
                `artifact uploads for agent ${agentId} failing, ${state.pending} objects (${state.pendingBytes} bytes) kept in the local spool: ${state.error ?? "unknown error"}`,
              );
            void events.write({ op: "store:upload", agentId, ...state });
          },
          maxStoreBytes: settings.limits.maxStoreBytes,
          // Full: gc what nothing cites (on disk, in this process's prompts, or stored in the last 10 minutes) before
          // refusing.
          onStoreFull: async ({ neededBytes, maxStoreBytes }) => {
            const scan = await collectReferences(agentRoot(root, agentId));
            if (scan.unreadable.length > 0) {
              logger.warn(
                `store full for agent ${agentId}: gc skipped, ${scan.unreadable.length} referencing source(s) unreadable: ${scan.unreadable.map((u) => u.source).join(", ")}`,
              );
              return undefined;
            }
            for (const [key, view] of views.entries())
              if (key.startsWith(`${agentId}\u0000`)) for (const h of view.handles) scan.handles.add(h);
            return {
              referenced: scan.handles,
              maxTotalBytes: Math.max(0, maxStoreBytes - neededBytes),
              keepNewerThanMs: STORE_FULL_KEEP_NEWER_MS,
            };
          },
        }).store;
        stores.set(agentId, store);
      }
      return store;
    },
    counter(settings, modelId) {
      const encoding = encodingForModel(modelId, settings.tokenizer.encoding);
      let counter = counters.get(encoding);
      if (!counter) {
        counter = createTokenCounter({ encoding });
        counters.set(encoding, counter);
      }
      return counter;
    },
    redact: redactWith,
    redactPatterns: patternsOf,
    state: createStateRegistry(),
    processWide,
  };
  resumeUploads(runtime);
  return runtime;
}

/**
 * Opens, at the start, the store of every agent on a bucket whose local spool holds objects a previous run did not
 * upload: they go up now, not only once that agent stashes again. In the background; a failure leaves them spooled.
 */
function resumeUploads(runtime: LedgerRuntime): void {
  void (async () => {
    for (const name of await fsp.readdir(path.join(runtime.root, "agents")).catch(() => [] as string[])) {
      const agentId = decodeSegment(name);
      const backlog = readUploadBacklog(runtime.settings(agentId).store, artifactRoot(runtime.root, agentId));
      if (backlog && backlog.objects > 0) runtime.store(agentId);
    }
  })().catch(() => undefined);
}
