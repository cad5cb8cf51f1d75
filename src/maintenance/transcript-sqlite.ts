/**
 * 2026.8.x onwards keep the transcript in SQLite (`openclaw-agent.sqlite`, table
 * `transcript_events`, rows as JSON, or on 2026.9.x JSON or zstd-compressed JSON; the active branch in
 * `session_transcript_active_events`) and pass the session key as `sessionFile`. The
 * engine reads the active branch read-only (WAL lets a reader run beside the host's
 * writer) to learn entry ids; every change still goes through the host's
 * `rewriteTranscriptEntries`, under the host's own session lock.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { zstdDecompressor } from "../fs/zstd.js";
import type { TranscriptEntry } from "./transcript-jsonl.js";
import { sqliteDatabaseClass } from "../fs/sqlite.js";

/** Where a session's SQLite transcript is. */
export interface SqliteTranscriptLocator {
  file: string;
  sessionId: string;
}

/**
 * The agent database: `storePath` when it names a `.sqlite` file, else
 * `<agentDir>/openclaw-agent.sqlite`, else `<stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite`.
 */
export function locateSqliteTranscript(options: {
  sessionId: string | undefined;
  storePath?: unknown;
  agentDir?: string;
  agentId: string;
  stateDir?: string;
}): SqliteTranscriptLocator | undefined {
  const { sessionId } = options;
  if (!sessionId) return undefined;
  const candidates: string[] = [];
  if (typeof options.storePath === "string" && options.storePath.endsWith(".sqlite"))
    candidates.push(options.storePath);
  if (options.agentDir) candidates.push(path.join(options.agentDir, "openclaw-agent.sqlite"));
  if (options.stateDir)
    candidates.push(path.join(options.stateDir, "agents", options.agentId, "agent", "openclaw-agent.sqlite"));
  const file = candidates.find((f) => existsSync(f));
  return file ? { file, sessionId } : undefined;
}

function decodeEvent(json: unknown, zstd: unknown): Record<string, unknown> | undefined {
  try {
    if (typeof json === "string") return JSON.parse(json) as Record<string, unknown>;
    const decompress = zstdDecompressor();
    if (zstd instanceof Uint8Array && decompress)
      return JSON.parse(decompress(zstd).toString("utf8")) as Record<string, unknown>;
  } catch {
    // a row this reader cannot decode is left alone
  }
  return undefined;
}

/** How long a read waits for another connection's lock before giving up for this turn. */
export const SQLITE_BUSY_WAIT_MS = 50;

/** The agent database, read-only beside the host's writer (WAL), with a short busy wait. */
async function openReadOnly(locator: SqliteTranscriptLocator): Promise<import("node:sqlite").DatabaseSync> {
  const DatabaseSync = sqliteDatabaseClass();
  const db = new DatabaseSync(locator.file, { readOnly: true });
  try {
    // Reads are synchronous: a long busy wait behind the host's write lock stalls the whole gateway.
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_WAIT_MS}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The message entries of the session's active branch, oldest first; undefined when the
 * database or its tables are not there (another line, another layout).
 */
export async function readSqliteActiveBranch(locator: SqliteTranscriptLocator): Promise<TranscriptEntry[] | undefined> {
  let db: import("node:sqlite").DatabaseSync | undefined;
  try {
    db = await openReadOnly(locator);
    // 2026.8.2's rows are plain JSON; 2026.9.x added the compressed column.
    const columns = new Set(
      (db.prepare("PRAGMA table_info(transcript_events)").all() as { name: string }[]).map((c) => c.name),
    );
    const zstd = columns.has("event_zstd") ? "e.event_zstd" : "NULL";
    const rows = db
      .prepare(
        `SELECT e.event_json AS json, ${zstd} AS zstd FROM session_transcript_active_events a JOIN transcript_events e ON e.session_id = a.session_id AND e.seq = a.event_seq WHERE a.session_id = ? ORDER BY a.active_position`,
      )
      .all(locator.sessionId) as { json: unknown; zstd: unknown }[];
    const out: TranscriptEntry[] = [];
    for (const row of rows) {
      const event = decodeEvent(row.json, row.zstd);
      if (!event || event.type !== "message" || typeof event.id !== "string") continue;
      const message = event.message;
      if (!message || typeof message !== "object") continue;
      out.push({
        id: event.id,
        parentId: typeof event.parentId === "string" ? event.parentId : null,
        message: message as Record<string, unknown>,
      });
    }
    return out;
  } catch {
    // Unreadable or locked database: the caller reports the rewrite as unavailable this turn.
    return undefined;
  } finally {
    db?.close();
  }
}

/**
 * Whether the host's index of the session (its active-branch projection) covers every stored event: false
 * while 2026.9.x re-indexes after a rewrite, undefined where the layout keeps no index state (2026.8.2) or the
 * database cannot be read.
 */
export async function sqliteProjectionCurrent(locator: SqliteTranscriptLocator): Promise<boolean | undefined> {
  let db: import("node:sqlite").DatabaseSync | undefined;
  try {
    db = await openReadOnly(locator);
    const hasState = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_index_state'")
      .get();
    if (!hasState) return undefined;
    const state = db
      .prepare(
        "SELECT indexed_seq AS indexed, needs_rebuild AS rebuild FROM session_transcript_index_state WHERE session_id = ?",
      )
      .get(locator.sessionId) as { indexed: number; rebuild: number } | undefined;
    const latest = db
      .prepare("SELECT MAX(seq) AS seq FROM transcript_events WHERE session_id = ?")
      .get(locator.sessionId) as { seq: number | null } | undefined;
    if (latest?.seq == null) return true;
    return state !== undefined && state.rebuild === 0 && state.indexed === latest.seq;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/** How often {@link waitForSqliteProjection} looks again. */
const PROJECTION_POLL_MS = 25;

/**
 * Waits until the host's projection of the session is current again, up to `timeoutMs`. After a rewrite
 * 2026.9.6 re-indexes the session in the background (about a second); a turn that starts meanwhile fails
 * before the model ("Session transcript projection is rebuilding"), and maintain() runs inside the turn's
 * run, so waiting here keeps the next turn behind the re-index.
 */
export async function waitForSqliteProjection(
  locator: SqliteTranscriptLocator,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<{ current: boolean | undefined; waitedMs: number }> {
  const started = Date.now();
  for (;;) {
    const current = await sqliteProjectionCurrent(locator);
    const waitedMs = Date.now() - started;
    if (current !== false || waitedMs >= options.timeoutMs || options.signal?.aborted) return { current, waitedMs };
    await new Promise((resolve) => setTimeout(resolve, PROJECTION_POLL_MS));
  }
}
