/**
 * The one place that knows how the two host generations call the engine.
 *
 * 2026.4.24 calls the factory with no argument, passes the model's whole
 * window as `tokenBudget`, a JSONL path as `sessionFile`, and ingests through
 * `afterTurn`. 2026.9.x passes `{ config, agentDir, workspaceDir }`, the prompt
 * budget after reserves (1 in one retry path), the session key as `sessionFile`,
 * and ingests through `commitTurn`. This module normalises; it does not decide.
 */
import path from "node:path";

/** Which host generation is calling, as far as can be told. */
export type HostGeneration = "2026.4" | "2026.9";

/** What the factory learnt about its host. */
export interface HostContext {
  generation: HostGeneration;
  /** Agent id derived from `agentDir` (`<state>/agents/<id>/agent`), when given. */
  agentId: string | undefined;
  agentDir: string | undefined;
  workspaceDir: string | undefined;
}

/** Normalises the factory argument: absent on 2026.4.24, an object on 2026.9.x. */
export function normalizeFactoryContext(ctx: unknown): HostContext {
  if (!ctx || typeof ctx !== "object") {
    return { generation: "2026.4", agentId: undefined, agentDir: undefined, workspaceDir: undefined };
  }
  const rec = ctx as Record<string, unknown>;
  const agentDir = typeof rec.agentDir === "string" ? rec.agentDir : undefined;
  const workspaceDir = typeof rec.workspaceDir === "string" ? rec.workspaceDir : undefined;
  return { generation: "2026.9", agentId: agentIdFromAgentDir(agentDir), agentDir, workspaceDir };
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
  const target = (rec.sessionTarget && typeof rec.sessionTarget === "object" ? rec.sessionTarget : {}) as Record<string, unknown>;
  const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
  const sessionId = str(rec.sessionId) ?? str(target.sessionId) ?? "unknown-session";
  const sessionKey = str(rec.sessionKey) ?? str(target.sessionKey) ?? sessionId;
  const agentId = str(target.agentId) ?? str(rec.agentId) ?? agentIdFromSessionKey(sessionKey) ?? host.agentId ?? "main";
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
export const HOST_424_RESERVE_TOKENS = 20_000;
/** 2026.4.24's precheck multiplies its chars/4 estimate by this. */
export const HOST_424_SAFETY_MARGIN = 1.2;

/**
 * The prompt budget the host will really admit. 2026.9.x passes it. 2026.4.24
 * passes the whole context window, but its precheck admits only the window
 * minus the reserve (never below min(8000, window/2)), sized as chars/4 × 1.2;
 * a view planned for the whole window would be compacted and reset there.
 */
export function hostPromptBudget(generation: HostGeneration, requested: unknown): unknown {
  if (generation !== "2026.4" || typeof requested !== "number" || !Number.isFinite(requested) || requested <= 0) return requested;
  const window = Math.floor(requested);
  const minPrompt = Math.min(8_000, Math.max(1, Math.floor(window * 0.5)));
  const reserve = Math.min(HOST_424_RESERVE_TOKENS, Math.max(0, window - minPrompt));
  return Math.max(1, Math.floor((window - reserve) / HOST_424_SAFETY_MARGIN));
}
