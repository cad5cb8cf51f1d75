import { LRUCache } from "lru-cache";
import { openArtifactStore } from "../artifacts/open-store.js";
import type { ArtifactStore } from "../artifacts/store-types.js";
import { createTokenCounter, type TokenCounter } from "../tokens/count-message.js";
import { encodingForModel } from "../tokens/encoder.js";
import { resolveAgentSettings } from "../config/parse-config.js";
import type { AgentSettings, LedgerConfig } from "../config/schema.js";
import { createLedgerLogger, type HostLogger, type LedgerLogger } from "../host/logger.js";
import { compileRedactPatterns, redactSecrets, type RedactPatterns } from "../results/redact.js";
import { createEventLog, type EventLog } from "../state/event-log.js";
import { agentRoot, artifactRoot, encodeSegment, eventLogPath, resolveLedgerRoot } from "../state/paths.js";
import { collectReferences } from "../state/reference-scan.js";
import { createViewWriter, type ViewWriter } from "../state/view-record.js";
import { createSessionCache, type SessionCache } from "./session-cache.js";
import { processWideKey } from "../version.js";

/** The last assembled view of a session, kept in process so compact() can plan from it. */
export interface LastView {
  messages: readonly unknown[];
  /** The host's session id when planned (a reset starts a new one). */
  sessionId?: string;
  /** Shaped message `i` (tool outputs offloaded), as the planner counted it. */
  shape: (index: number) => unknown;
  /** What the planner charged message `i` (exact tokens, or more where the host's own estimator binds). */
  cost?: (index: number) => number;
  budgetTokens: number;
  messageBudget: number;
  tokens: number;
  start: number;
  handles: Set<string>;
}

/** Options for {@link createLedgerRuntime}. */
export interface LedgerRuntimeOptions {
  config: LedgerConfig;
  /** The host's plugin logger; the console when absent. */
  hostLogger?: HostLogger;
  /** Environment for the state dir. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * Services shared by every engine instance of one process: config, logging,
 * per-agent artifact stores, token counters and the session-state cache.
 * The engine object delegates to operations that take this runtime.
 */
export interface LedgerRuntime {
  readonly config: LedgerConfig;
  readonly root: string;
  readonly logger: LedgerLogger;
  readonly events: EventLog;
  readonly sessions: SessionCache;
  /** The batched writer of `views.json` (what `view` shows), flushed on dispose. */
  readonly views: ViewWriter;
  /** Last assembled view per `agentId + NUL + sessionKey` (the 64 most recently assembled sessions). */
  readonly lastViews: LRUCache<string, LastView>;
  /** System prompt and tool-schema chars of the agent's last model request, when the host reported it (`llm_input`). */
  readonly requestOverhead: Map<string, { systemChars: number; toolsChars: number }>;
  /** Effective settings of an agent (global config with its overrides). */
  settings(agentId: string): AgentSettings;
  /** The artifact store of an agent (created on first use). */
  store(agentId: string): ArtifactStore;
  /** The token counter for a model id under the agent's tokenizer setting. */
  counter(settings: AgentSettings, modelId?: string): TokenCounter;
  /** Redacts secrets per the agent's rules (previews, summaries, logs). */
  redact(settings: Pick<AgentSettings, "redaction">, text: string): string;
  /** The agent's extra redaction patterns, compiled once per settings object. */
  redactPatterns(settings: Pick<AgentSettings, "redaction">): RedactPatterns;
  /**
   * Process state owned by this runtime: the cache or queue a module keeps under `name`, made by
   * `create` on first use. State lives as long as the runtime, never in a module, so a second runtime
   * (another config or state dir in the same process) starts clean.
   */
  owned<T>(name: string, create: () => T): T;
  /**
   * Like {@link owned}, but shared with every copy of the plugin's modules in this process that uses the same
   * state root: 2026.9.6 loads the plugin twice (its `full` and `discovery` registrations), and its hooks and
   * its engine may come from different copies. For plain coordination state only (no classes: `instanceof`
   * differs between copies).
   */
  processWide<T>(name: string, create: () => T): T;
}

const PROCESS_WIDE = processWideKey("process-wide");

function processWide<T>(root: string, name: string, create: () => T): T {
  const g = globalThis as { [PROCESS_WIDE]?: Map<string, unknown> };
  const shared = (g[PROCESS_WIDE] ??= new Map());
  const key = `${root}\u0000${name}`;
  if (!shared.has(key)) shared.set(key, create());
  return shared.get(key) as T;
}

/** Sessions whose last view is kept for compact(). */
export const MAX_LAST_VIEWS = 64;

/** On a full store, artifacts younger than this are kept by its gc (they may be cited by a prompt being built). */
export const STORE_FULL_KEEP_NEWER_MS = 10 * 60_000;

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
  const ownedState = new Map<string, unknown>();
  return {
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
    requestOverhead: processWide(root, "request-overhead", () => new Map()),
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
    owned<T>(name: string, create: () => T): T {
      if (!ownedState.has(name)) ownedState.set(name, create());
      return ownedState.get(name) as T;
    },
    processWide<T>(name: string, create: () => T): T {
      return processWide(root, name, create);
    },
  };
}
