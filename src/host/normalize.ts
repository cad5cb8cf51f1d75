/**
 * The one place that normalises how the host lines call the engine.
 *
 * Which line is calling comes from {@link detectHost} (the runtime's version, else
 * the installed package); what each line means by its numbers from the table in
 * `host-lines.ts`. 2026.4.24 calls the factory with no argument, passes the
 * model's whole window as `tokenBudget` and a JSONL path as `sessionFile`;
 * 2026.5.28 onwards pass `{ config, agentDir, workspaceDir }`; 2026.8.x onwards
 * pass the prompt budget after reserves and the session key as `sessionFile`.
 * This module normalises; it does not decide.
 */
import path from "node:path";
import { detectHost } from "./detect-host.js";
import {
  DEFAULT_MEMORY_FLUSH,
  HOST_LINES,
  type HostLine,
  type HostLineSemantics,
  type MemoryFlushSettings,
} from "./host-lines.js";

/** Which host line is calling (kept under its old name: the lines were once two generations). */
export type HostGeneration = HostLine;

/** What the factory learnt about its host. */
export interface HostContext {
  generation: HostGeneration;
  /** The line's semantics (budget meaning, estimators, capabilities). */
  semantics: HostLineSemantics;
  /** The host version, when known, and how it was learnt. */
  version: string | undefined;
  versionSource: "runtime" | "package" | "factory-shape";
  /** The host config handed to the factory (2026.5.28 onwards), for model limits. */
  config: unknown;
  /** Agent id derived from `agentDir` (`<state>/agents/<id>/agent`), when given. */
  agentId: string | undefined;
  agentDir: string | undefined;
  workspaceDir: string | undefined;
}

/**
 * Normalises the factory argument (absent on 2026.4.x, an object from 2026.5.28)
 * together with the host version register() read from `api.runtime.version`.
 */
export function normalizeFactoryContext(ctx: unknown, runtimeVersion?: string): HostContext {
  const detected = detectHost(runtimeVersion, ctx);
  const base = {
    generation: detected.line,
    semantics: HOST_LINES[detected.line],
    version: detected.version,
    versionSource: detected.source,
  };
  if (!ctx || typeof ctx !== "object") {
    return { ...base, config: undefined, agentId: undefined, agentDir: undefined, workspaceDir: undefined };
  }
  const rec = ctx as Record<string, unknown>;
  const agentDir = typeof rec.agentDir === "string" ? rec.agentDir : undefined;
  const workspaceDir = typeof rec.workspaceDir === "string" ? rec.workspaceDir : undefined;
  return { ...base, config: rec.config, agentId: agentIdFromAgentDir(agentDir), agentDir, workspaceDir };
}

/** The model's limits as the host config declares them. */
export interface ModelLimits {
  contextWindow: number | undefined;
  maxTokens: number | undefined;
}

const posInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;

/**
 * `models.providers.<p>.models[]` entry for `model` (`<provider>/<id>` or a bare id):
 * its `contextWindow` (or `contextTokens`) and `maxTokens`. Unknown → undefined fields.
 */
export function modelLimitsFromConfig(config: unknown, model: unknown): ModelLimits {
  const none: ModelLimits = { contextWindow: undefined, maxTokens: undefined };
  if (!config || typeof config !== "object" || typeof model !== "string" || model.length === 0) return none;
  try {
    const providers = ((config as { models?: { providers?: unknown } }).models?.providers ?? {}) as Record<
      string,
      unknown
    >;
    for (const [providerId, provider] of Object.entries(providers)) {
      const models = (provider as { models?: unknown } | undefined)?.models;
      if (!Array.isArray(models)) continue;
      for (const m of models as Record<string, unknown>[]) {
        const id = typeof m?.id === "string" ? m.id : undefined;
        if (!id || (model !== id && model !== `${providerId}/${id}`)) continue;
        return { contextWindow: posInt(m.contextTokens) ?? posInt(m.contextWindow), maxTokens: posInt(m.maxTokens) };
      }
    }
  } catch {
    // a hostile config getter: no limits known
  }
  return none;
}

/** Reads `agents.defaults.compaction.memoryFlush` from the host config (defaults when absent or unreadable). */
export function memoryFlushFromConfig(config: unknown): MemoryFlushSettings {
  try {
    const flush = (
      config as { agents?: { defaults?: { compaction?: { memoryFlush?: Record<string, unknown> } } } } | undefined
    )?.agents?.defaults?.compaction?.memoryFlush;
    const soft = flush?.softThresholdTokens;
    return {
      enabled: flush?.enabled !== false,
      softThresholdTokens:
        typeof soft === "number" && Number.isFinite(soft) && soft >= 0 ? Math.floor(soft) : undefined,
    };
  } catch {
    // a hostile config getter: the host's defaults
    return DEFAULT_MEMORY_FLUSH;
  }
}

function agentIdFromAgentDir(agentDir: string | undefined): string | undefined {
  if (!agentDir) return undefined;
  const parts = path.resolve(agentDir).split(path.sep);
  const i = parts.lastIndexOf("agents");
  return i >= 0 && parts[i + 1] ? parts[i + 1] : undefined;
}

/** Agent id from a session key of the form `agent:<id>:...`. */
export function agentIdFromSessionKey(sessionKey: string | undefined): string | undefined {
  if (!sessionKey) return undefined;
  const m = /^agent:([^:]+):/.exec(sessionKey);
  return m?.[1];
}

/** Who a lifecycle call is about. */
export interface SessionIdentity {
  agentId: string;
  /** Stable key used to scope state: the session key, else the session id. */
  sessionKey: string;
  sessionId: string;
}

/**
 * Resolves agent and session from any lifecycle params: `sessionTarget` first,
 * then `sessionKey` (`agent:<id>:...`), then the factory's agent, then `main`.
 */
export function resolveSessionIdentity(params: unknown, host: HostContext): SessionIdentity {
  const rec = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
  const target = (rec.sessionTarget && typeof rec.sessionTarget === "object" ? rec.sessionTarget : {}) as Record<
    string,
    unknown
  >;
  const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
  const sessionId = str(rec.sessionId) ?? str(target.sessionId) ?? "unknown-session";
  const sessionKey = str(rec.sessionKey) ?? str(target.sessionKey) ?? sessionId;
  const agentId =
    str(target.agentId) ?? str(rec.agentId) ?? agentIdFromSessionKey(sessionKey) ?? host.agentId ?? "main";
  return { agentId, sessionKey, sessionId };
}

/** Where the raw transcript can be read, by host generation. */
export type TranscriptLocator = { kind: "jsonl"; file: string } | { kind: "opaque"; key: string } | { kind: "none" };

/** 2026.4.24 passes an absolute JSONL path as `sessionFile`; 2026.9.x passes the session key. */
export function locateTranscript(sessionFile: unknown): TranscriptLocator {
  if (typeof sessionFile !== "string" || sessionFile.length === 0) return { kind: "none" };
  if (path.isAbsolute(sessionFile) && sessionFile.endsWith(".jsonl")) return { kind: "jsonl", file: sessionFile };
  return { kind: "opaque", key: sessionFile };
}

/** Why a budget was replaced, for logs and tests. */
export type BudgetSource = "host" | "fallback" | "raised" | "clamped";

/** The budget the planner works with, and where it came from. */
export interface NormalizedBudget {
  tokens: number;
  source: BudgetSource;
  /** What the host passed, for the record. */
  requested: unknown;
}

/** Options for {@link normalizeBudget}. */
export interface NormalizeBudgetOptions {
  /** Used when the host passes no usable number. */
  fallbackTokens: number;
  /** Floor for tiny budgets (the 2026.9 retry path passes 1). */
  minTokens: number;
  /** Ceiling, e.g. the model's context window when known. */
  maxTokens?: number;
}

/**
 * Degenerate budgets have one documented behaviour: not a finite number or
 * ≤ 0 → the fallback; below the floor → the floor; above the ceiling → the
 * ceiling. Never throws.
 */
export function normalizeBudget(requested: unknown, options: NormalizeBudgetOptions): NormalizedBudget {
  const n = typeof requested === "number" ? requested : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return { tokens: options.fallbackTokens, source: "fallback", requested };
  let tokens = Math.floor(n);
  if (tokens < options.minTokens) return { tokens: options.minTokens, source: "raised", requested };
  if (options.maxTokens !== undefined && tokens > options.maxTokens) {
    tokens = options.maxTokens;
    return { tokens, source: "clamped", requested };
  }
  return { tokens, source: "host", requested };
}

/** The `rewriteTranscriptEntries` capability when the host offers it (only in maintain). */
export function rewriteCapability(
  runtimeContext: unknown,
): ((request: { replacements: { entryId: string; message: unknown }[] }) => Promise<unknown>) | undefined {
  if (!runtimeContext || typeof runtimeContext !== "object") return undefined;
  const fn = (runtimeContext as Record<string, unknown>).rewriteTranscriptEntries;
  return typeof fn === "function" ? (fn as never) : undefined;
}

/** 2026.4.24's compaction reserve (OpenClaw's floor over pi's 16,384 default). */
export const HOST_424_RESERVE_TOKENS = HOST_LINES["2026.4"].rawPrecheck?.reserveTokens ?? 20_000;
/** 2026.4.24's precheck multiplies its chars/4 estimate by this. */
export const HOST_424_SAFETY_MARGIN = HOST_LINES["2026.4"].rawPrecheck?.safetyMargin ?? 1.2;

/**
 * The prompt budget (exact tokens) the host will really admit, from what it passed.
 * 2026.8.x onwards pass it. 2026.4.24 passes the whole context window, but its
 * precheck (sized on the raw transcript) admits only the window minus the reserve
 * (never below min(8000, window/2)), sized as chars/4 × 1.2. 2026.5.x-2026.7.x pass
 * the whole window; their own estimators are applied in the host's currency
 * (`host-estimate.ts`), the output allowance is reserved by the caller.
 */
export function hostPromptBudget(generation: HostGeneration, requested: unknown): unknown {
  if (generation !== "2026.4" || typeof requested !== "number" || !Number.isFinite(requested) || requested <= 0)
    return requested;
  const window = Math.floor(requested);
  const minPrompt = Math.min(8_000, Math.max(1, Math.floor(window * 0.5)));
  const reserve = Math.min(HOST_424_RESERVE_TOKENS, Math.max(0, window - minPrompt));
  return Math.max(1, Math.floor((window - reserve) / HOST_424_SAFETY_MARGIN));
}

/**
 * True when the user asked for this compaction (`/compact`, `sessions.compact`) rather than
 * the host requiring one before a turn. 2026.9.x says so in two places: `compactionTarget:
 * "threshold"` and `runtimeContext.forceReason: "manual"`; earlier lines pass neither.
 */
export function isManualCompaction(params: unknown): boolean {
  const p =
    params && typeof params === "object"
      ? (params as { compactionTarget?: unknown; runtimeContext?: { forceReason?: unknown } })
      : {};
  return p.compactionTarget === "threshold" || p.runtimeContext?.forceReason === "manual";
}
