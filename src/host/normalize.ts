/**
 * The one place that normalises how the host lines call the engine.
 *
 * Which line is calling comes from {@link detectHost} (the runtime's version, else
 * the installed package); what each line means by its numbers from the table in
 * `host-lines.ts`. 2026.4.24 calls the factory with no argument, passes the
 * model's whole window as `tokenBudget` and a JSONL path as `sessionFile`;
 * 2026.5.28 onwards pass `{ config, agentDir, workspaceDir }`; 2026.8.x onwards
 * pass the prompt budget after reserves and the session key as `sessionFile`.
 * This module normalises; it does not decide. The budget figures (model limits,
 * memory flush, a degenerate `tokenBudget`, 2026.4.24's admitted prompt) are read in
 * `host-budget.ts`.
 */
import path from "node:path";
import { detectHost } from "./detect-host.js";
import { HOST_LINES, type HostLine, type HostLineSemantics } from "./host-lines.js";

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

/**
 * True for a session the host runs for itself, one-shot: `agent:<id>:internal-session-effects:<run>` (from 2026.8.2
 * the pre-compaction memory flush and other runs whose side effects it suppresses). The host's own test
 * (`isInternalSessionEffectsKey`) checks this segment and no other; no host line makes another
 * `agent:<id>:internal-…` key, so a user's session named like one is a user's session.
 */
export function isInternalSessionKey(sessionKey: string): boolean {
  return /^agent:[^:]+:internal-session-effects:/.test(sessionKey);
}

/** The params object of one engine call, as the host passed it. */
export type HostParams = Record<string, unknown>;

/** A call's params as an object (anything else reads as no params). */
export function asParams(value: unknown): HostParams {
  return value && typeof value === "object" ? (value as HostParams) : {};
}

/** A list the host passed, or an empty one when it passed anything else. */
export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
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

/** The `rewriteTranscriptEntries` capability when the host offers it (only in maintain). */
export function rewriteCapability(
  runtimeContext: unknown,
): ((request: { replacements: { entryId: string; message: unknown }[] }) => Promise<unknown>) | undefined {
  if (!runtimeContext || typeof runtimeContext !== "object") return undefined;
  const fn = (runtimeContext as Record<string, unknown>).rewriteTranscriptEntries;
  return typeof fn === "function" ? (fn as never) : undefined;
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
