/**
 * The host's transcripts of one agent, each tied to its session key where the host or the ledger says which: JSONL
 * files named `<sessionId>.jsonl` with `sessions.json` mapping keys to ids (2026.4.x), and the `transcript_events`
 * rows of `openclaw-agent.sqlite` with `session_windows` mapping keys to ids (2026.9.x). The ledger's own session
 * states add the ids it saw, so a session the host index forgot still finds its key.
 */
import { existsSync, promises as fsp } from "node:fs";
import { isNotFound } from "../../errors.js";
import path from "node:path";
import { tryParseJson } from "../../json.js";
import { collectUnreadable, scanFileHandles, scanSqliteHandles } from "../../state/reference-scan.js";
import { listLedgerSessions } from "../core/ledger-scan.js";
import { sqliteDatabaseClass } from "../../fs/sqlite.js";

/** One session's transcript in the host's state dir. */
export interface HostTranscript {
  store: "jsonl" | "sqlite";
  /** The JSONL file, or the SQLite database. */
  file: string;
  sessionId: string;
  /** The session key, when the host index or the ledger state names it. */
  sessionKey: string | undefined;
}

/** A source that exists but could not be read. */
export interface UnreadableSource {
  source: string;
  reason: string;
}

/** The host's own folder of one agent: `<openclaw state>/agents/<agentId>`. */
export function hostAgentDir(openclawState: string, agentId: string): string {
  return path.join(openclawState, "agents", agentId);
}

/** Every transcript the host keeps for `agentId`, with its session key where known. Never throws for one bad source. */
export async function listHostTranscripts(options: {
  openclawState: string;
  ledgerRoot: string;
  agentId: string;
}): Promise<{ transcripts: HostTranscript[]; unreadable: UnreadableSource[] }> {
  const unreadable: UnreadableSource[] = [];
  const fail = collectUnreadable(unreadable);
  const keyOfId = new Map<string, string>();
  for (const s of await listLedgerSessions(options.ledgerRoot, options.agentId).catch(() => []))
    if (s.state?.sessionId) keyOfId.set(s.state.sessionId, s.sessionKey);

  const agentDir = hostAgentDir(options.openclawState, options.agentId);
  const sessionsDir = path.join(agentDir, "sessions");
  const files = new Map<string, string | undefined>();
  const index = await readSessionIndex(path.join(sessionsDir, "sessions.json"), fail);
  for (const [key, entry] of Object.entries(index)) {
    if (entry.sessionId) keyOfId.set(entry.sessionId, key);
    if (entry.sessionFile && existsSync(entry.sessionFile)) files.set(path.resolve(entry.sessionFile), key);
  }
  try {
    for (const name of await fsp.readdir(sessionsDir))
      if (name.endsWith(".jsonl") && !files.has(path.join(sessionsDir, name)))
        files.set(path.join(sessionsDir, name), undefined);
  } catch (err) {
    if (!isNotFound(err)) fail(sessionsDir, err);
  }
  const transcripts: HostTranscript[] = [...files].map(([file, key]) => {
    const sessionId = path.basename(file, ".jsonl");
    return { store: "jsonl", file, sessionId, sessionKey: key ?? keyOfId.get(sessionId) };
  });

  const db = path.join(agentDir, "agent", "openclaw-agent.sqlite");
  if (existsSync(db)) {
    for (const { sessionId, sessionKey } of sqliteSessions(db, fail))
      transcripts.push({ store: "sqlite", file: db, sessionId, sessionKey: sessionKey ?? keyOfId.get(sessionId) });
  }
  return { transcripts, unreadable };
}

/** The handles a transcript cites; a source that cannot be read goes to `fail`. */
export async function transcriptHandles(
  t: HostTranscript,
  fail: (source: string, err: unknown) => void,
): Promise<Set<string>> {
  const found = new Set<string>();
  if (t.store === "sqlite") scanSqliteHandles(t.file, found, fail, [t.sessionId]);
  else await scanFileHandles(t.file, found).catch((err) => fail(t.file, err));
  return found;
}

/** Where a transcript is, as a reader finds it again. */
export function describeTranscript(t: HostTranscript): string {
  return t.store === "sqlite" ? `host transcript ${t.file} (session id ${t.sessionId})` : `host transcript ${t.file}`;
}

async function readSessionIndex(
  file: string,
  fail: (source: string, err: unknown) => void,
): Promise<Record<string, { sessionId?: string; sessionFile?: string }>> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    if (!isNotFound(err)) fail(file, err);
    return {};
  }
  const value = tryParseJson(text);
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    fail(file, new Error("not a JSON object"));
    return {};
  }
  const out: Record<string, { sessionId?: string; sessionFile?: string }> = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const e = entry as { sessionId?: unknown; sessionFile?: unknown } | null;
    out[key] = {
      ...(typeof e?.sessionId === "string" ? { sessionId: e.sessionId } : {}),
      ...(typeof e?.sessionFile === "string" ? { sessionFile: e.sessionFile } : {}),
    };
  }
  return out;
}

/** Session ids with rows in `transcript_events`, keyed through `session_windows` where that table exists. */
function sqliteSessions(
  file: string,
  fail: (source: string, err: unknown) => void,
): { sessionId: string; sessionKey: string | undefined }[] {
  let db: import("node:sqlite").DatabaseSync | undefined;
  try {
    const DatabaseSync = sqliteDatabaseClass();
    db = new DatabaseSync(file, { readOnly: true });
    const keys = new Map<string, string>();
    const hasWindows = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_windows'")
      .get();
    if (hasWindows)
      for (const row of db.prepare("SELECT session_id, session_key FROM session_windows").all())
        keys.set(String(row.session_id), String(row.session_key));
    return db
      .prepare("SELECT DISTINCT session_id FROM transcript_events")
      .all()
      .map((row) => ({ sessionId: String(row.session_id), sessionKey: keys.get(String(row.session_id)) }));
  } catch (err) {
    fail(`${file} (transcript_events)`, err);
    return [];
  } finally {
    db?.close();
  }
}
