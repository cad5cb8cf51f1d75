import type { DebtTrend } from "./status-debt-trend.js";
import type { DebtReading } from "../../host/raw-tally.js";
import type { StoredTally } from "./session-figures.js";

/** Schema tag of `status --json`. */
export const STATUS_SCHEMA = "context-ledger.status.v1";

/** One session in the status report. */
export interface SessionStatus {
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  /** The user's turns (genuine user messages; the host's commits and the engine's assembles are not turns). */
  turns: number;
  updatedAt: string | null;
  /** The budget of the last turn's main prompt (the turn's largest-budget assembly). */
  promptBudget: number | null;
  /** Exact tokens of that prompt. */
  assembledTokens: number | null;
  /**
   * The host's other assemblies for that turn (2026.9.x: the one before the turn, budget after reserves, and the
   * tool loop's later ones, budgets cut by what the turn appended, down to 1), not the turn's prompt; null when the
   * turn had one.
   */
  hostInTurnAssembles: { count: number; smallestBudget: number } | null;
  rawHistoryTokens: number | null;
  /** The debt after the turn's paydown (what the host loads next, over the budget). */
  debtTokens: number | null;
  /** The debt read before the turn's paydown (the turn's fullest history). */
  debtBeforePaydownTokens: number | null;
  reducibleChars: number | null;
  debtTrend: DebtTrend;
  /** Compaction entries the host's transcript got. */
  compactions: number;
  /** Checkpoints the engine sealed. */
  checkpoints: number;
  /** What the store holds from this session, by kind (tool outputs offloaded, the rest apart). */
  stored: StoredTally;
  lastCheckpoint: { handle: string; at: string; coveredCount: number } | null;
  /** The last committed turns (at most 5), oldest first. */
  recentTurns: { seq: number; at: string; messages: number; tokens: number; handles: number }[];
  /** The last debt readings (at most 8), oldest first. */
  debtHistory: DebtReading[];
  /** Why the session state could not be read, if it could not. */
  error: string | null;
}

/** One agent in the status report. */
export interface AgentStatus {
  agentId: string;
  /** False when the plugin config turns context-ledger off for this agent: its turns pass through unrecorded. */
  enabled: boolean;
  artifacts: {
    count: number;
    bytes: number;
    storedBytes: number;
    maxStoreBytes: number;
    usedRatio: number;
    /** The artifacts by kind: tool outputs offloaded, checkpoints and transcript parts apart. */
    byKind: StoredTally;
  };
  /** With a remote backend: where the objects go and what waits in the local spool to upload. */
  upload?: { backend: string; location: string; pendingObjects: number; pendingBytes: number };
  sessions: SessionStatus[];
}

/** The `status --json` document. */
export interface StatusReport {
  schema: typeof STATUS_SCHEMA;
  root: string;
  agents: AgentStatus[];
  warnings: {
    agentId: string;
    sessionKey?: string;
    code: "debt_growing" | "store_near_limit" | "state_unreadable" | "upload_backlog";
    message: string;
  }[];
  /** Host-internal sessions left out (shown with `--all`). */
  hiddenInternalSessions: number;
}
