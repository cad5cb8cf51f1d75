import type { WindowAnchor } from "../window/window-anchors.js";
import type { DebtReading, RawTally } from "../host/raw-tally.js";

/** Schema tag of the per-session state file. */
export const SESSION_STATE_SCHEMA = "context-ledger.session.v1";
/** How many committed advancement keys are remembered for duplicate detection. */
export const MAX_REMEMBERED_KEYS = 2048;

export type { DebtReading, RawTally } from "../host/raw-tally.js";

/** The window the planner kept last time (append-stability anchor). */
export interface Frontier {
  /** Index of the first kept message. */
  start: number;
  /** Fingerprint of that message. */
  anchor: string;
  /** Messages in the transcript when the frontier was set. */
  total: number;
}

/** One committed turn, as recorded by commitTurn/afterTurn. */
export interface TurnRecord {
  seq: number;
  key: string;
  at: string;
  messages: number;
  tokens: number;
  handles: string[];
}

/** Persistent state of one session (agent id + session key). */
export interface SessionState {
  schema: typeof SESSION_STATE_SCHEMA;
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  /** Identity of the current conversation; changes on /new and /reset. */
  epoch: string | null;
  /** Recently committed advancement keys, oldest first. */
  committedKeys: string[];
  /** Turns committed (commitTurn, or each afterTurn of 2026.4-2026.7, which calls it once per tool-loop step). */
  turns: number;
  /**
   * The user's turns: genuine user messages committed (operator commands and host-internal messages left out).
   * Absent in states written before it was kept: there, {@link SessionState.turns}.
   */
  userTurns?: number;
  /** Fingerprint of the newest user message counted in {@link SessionState.userTurns}. */
  lastUserFingerprint?: string;
  recentTurns: TurnRecord[];
  raw: RawTally;
  frontier: Frontier | null;
  /** Kept window per budget class (src/window/window-anchors.ts); absent in states written before them. */
  windows?: WindowAnchor[];
  lastDebt: DebtReading | null;
  debtHistory: DebtReading[];
  /** Checkpoints the engine sealed (each compaction it made), whether or not the host's transcript recorded it. */
  compactions: number;
  /**
   * Compaction entries the host's transcript got for this session: written by the engine into a JSONL transcript
   * (2026.4-2026.7), or a compaction reported to a host that records it itself. Absent in states written before.
   */
  hostCompactions?: number;
  checkpoints: { handle: string; at: string; coveredCount: number }[];
  /** Artifact bytes this session newly stored (for `limits.maxSessionBytes`). */
  artifactBytes?: number;
  /** afterTurn ingestion (2026.4.24): transcript messages already ingested for `sessionId`. */
  ingested?: { sessionId: string; count: number };
  /** Tool outputs of this session the store refused (full): they stay only as the host keeps them. For `status`. */
  unstored?: { count: number; last: { at: string; reason: string } };
  /** State and summary problems of this session (corrupt or unreadable files, failed writes), for `status`. */
  problems?: StateProblems;
  updatedAt: string;
}

/** Counted problems of one session's files; `last` says what happened most recently. */
export interface StateProblems {
  count: number;
  last: { code: string; at: string; message: string; keptAs?: string };
}

/** Counts one problem into `state.problems`. */
export function countProblem(state: SessionState, problem: { code: string; message: string; keptAs?: string }): void {
  const last = {
    code: problem.code,
    at: new Date().toISOString(),
    message: problem.message,
    ...(problem.keptAs ? { keptAs: problem.keptAs } : {}),
  };
  state.problems = { count: (state.problems?.count ?? 0) + 1, last };
}

/** Called when a session's state file is corrupt (kept as `keptAs`) or a state write failed. */
export type StateProblemReporter = (problem: { code: string; file: string; message: string; keptAs?: string }) => void;

/** A fresh state for a session. */
export function createSessionState(agentId: string, sessionKey: string): SessionState {
  return {
    schema: SESSION_STATE_SCHEMA,
    agentId,
    sessionKey,
    sessionId: null,
    epoch: null,
    committedKeys: [],
    turns: 0,
    userTurns: 0,
    recentTurns: [],
    raw: { count: 0, lastFingerprint: null, tokens: 0, reducibleChars: 0 },
    frontier: null,
    lastDebt: null,
    debtHistory: [],
    compactions: 0,
    hostCompactions: 0,
    checkpoints: [],
    updatedAt: new Date(0).toISOString(),
  };
}

/** Remembers a committed key, dropping the oldest beyond {@link MAX_REMEMBERED_KEYS}. */
export function rememberKey(state: SessionState, key: string): void {
  state.committedKeys.push(key);
  if (state.committedKeys.length > MAX_REMEMBERED_KEYS) {
    state.committedKeys.splice(0, state.committedKeys.length - MAX_REMEMBERED_KEYS);
  }
}
