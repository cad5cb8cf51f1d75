/**
 * The services one runtime offers, as types only: a function names the members it uses
 * (`Pick<LedgerServices, "store" | "logger">`, under a name of its own) and so says what it may touch;
 * only the engine's wiring (`plugin.ts`, `engine/create-engine.ts`) holds the whole runtime.
 */
import type { LRUCache } from "lru-cache";
import type { ArtifactStore } from "../artifacts/index.js";
import type { AgentSettings, LedgerConfig } from "../config/schema.js";
import type { LedgerLogger } from "../host/logger.js";
import type { RedactPatterns } from "../results/redact.js";
import type { EventLog } from "../state/event-log.js";
import type { ViewWriter } from "../state/view-record.js";
import type { TokenCounter } from "../tokens/count-message.js";
import type { SessionCache } from "./session-cache.js";
import type { StateRegistry } from "./state-slots.js";

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

/** Request overhead of an agent's last model request, as the host reported it (`llm_input`). */
export interface RequestOverheadChars {
  systemChars: number;
  toolsChars: number;
}

/**
 * Services shared by every engine instance of one process: config, logging, per-agent artifact stores, token
 * counters, the session-state cache and the state modules keep in their slots.
 */
export interface LedgerServices {
  readonly config: LedgerConfig;
  /** The ledger's state root (sessions, artifacts, the event log). */
  readonly root: string;
  readonly logger: LedgerLogger;
  readonly events: EventLog;
  readonly sessions: SessionCache;
  /** The batched writer of `views.json` (what `view` shows), flushed on dispose. */
  readonly views: ViewWriter;
  /** Last assembled view per `agentId + NUL + sessionKey` (the 64 most recently assembled sessions). */
  readonly lastViews: LRUCache<string, LastView>;
  /** System prompt and tool-schema chars of the agent's last model request, when the host reported it. */
  readonly requestOverhead: Map<string, RequestOverheadChars>;
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
  /** Caches and queues modules keep for as long as this runtime lives (`runtime/state-slots.ts`). */
  readonly state: StateRegistry;
  /**
   * The one process-wide registry: state shared with every copy of the plugin's modules in this process that
   * uses the same state root (`createProcessWideRegistry`). Coordination state only.
   */
  readonly processWide: StateRegistry;
}
