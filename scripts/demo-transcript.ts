/**
 * The host's raw transcript of the demo session, measured the same way for both
 * engines: the active branch of the session, what the host loads and sizes (a rewrite
 * re-appends the changed entries and leaves the replaced ones behind, off the branch).
 * The JSONL file of the active session on 2026.4.24-style hosts (the parent chain of its
 * last entry); the `transcript_events` rows of the active session window in the agent's
 * SQLite database on 2026.9.x, on its active branch when the store records one
 * (uncompressed UTF-8 bytes, zstd rows inflated for counting).
 */
import { existsSync, promises as fsp } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { readJsonlTranscript } from "../src/maintenance/transcript-jsonl.js";

/** Size of the active session's stored transcript. */
export interface TranscriptSize {
  /** UTF-8 bytes of the stored events (JSONL lines or SQLite event JSON). */
  bytes: number;
  /** Exact tokens of the message texts it holds (what a host would hand the engine as history). */
  tokens: number;
  /** Message entries it holds. */
  messages: number;
  /** Where it was read from. */
  store: "jsonl" | "sqlite" | "none";
}

/** Text of a stored message entry: text parts, tool-call arguments and tool results. */
export function storedMessageText(message: unknown): string {
  if (!message || typeof message !== "object") return "";
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content as Record<string, unknown>[]) {
    if (typeof part?.text === "string") text += part.text;
    else if (typeof part?.thinking === "string") text += part.thinking;
    else if (part?.arguments !== undefined) text += `${String(part.name ?? "")}${JSON.stringify(part.arguments)}`;
  }
  return text;
}

function tally(events: Iterable<unknown>, count: (text: string) => number): { tokens: number; messages: number } {
  let tokens = 0;
  let messages = 0;
  for (const event of events as Iterable<{ type?: unknown; message?: unknown } | undefined>) {
    if (event?.type !== "message" || !event.message) continue;
    messages++;
    tokens += count(storedMessageText(event.message)) + 4;
  }
  return { tokens, messages };
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined; // a torn last row while the host writes
  }
}

async function activeJsonl(sessionsDir: string, sessionKey: string): Promise<string | undefined> {
  try {
    const index = JSON.parse(await fsp.readFile(path.join(sessionsDir, "sessions.json"), "utf8")) as Record<
      string,
      { sessionId?: string; sessionFile?: string }
    >;
    const entry = index[sessionKey];
    if (entry?.sessionFile && existsSync(entry.sessionFile)) return entry.sessionFile;
    if (entry?.sessionId) {
      const file = path.join(sessionsDir, `${entry.sessionId}.jsonl`);
      if (existsSync(file)) return file;
    }
  } catch {
    // no index yet: fall back to the newest transcript
  }
  const files = (await fsp.readdir(sessionsDir).catch(() => [] as string[])).filter(
    (f) => f.endsWith(".jsonl") && !f.includes(".trajectory"),
  );
  const stats = await Promise.all(
    files.map(async (f) => ({ f, t: (await fsp.stat(path.join(sessionsDir, f))).mtimeMs })),
  );
  const newest = stats.sort((a, b) => b.t - a.t)[0];
  return newest ? path.join(sessionsDir, newest.f) : undefined;
}

async function sqliteSize(
  dbPath: string,
  sessionKey: string,
  count: (text: string) => number,
): Promise<TranscriptSize> {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const win = db
      .prepare("SELECT session_id FROM session_windows WHERE session_key = ? ORDER BY created_at DESC LIMIT 1")
      .get(sessionKey) as { session_id?: string } | undefined;
    const sessionId =
      win?.session_id ??
      (
        db
          .prepare("SELECT session_id FROM transcript_events GROUP BY session_id ORDER BY COUNT(*) DESC LIMIT 1")
          .get() as { session_id?: string } | undefined
      )?.session_id;
    if (!sessionId) return { bytes: 0, tokens: 0, messages: 0, store: "sqlite" };
    const hasBranch =
      db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_active_events'")
        .get() !== undefined;
    const query = hasBranch
      ? "SELECT e.event_json, e.event_zstd, e.event_utf8_bytes FROM session_transcript_active_events a JOIN transcript_events e ON e.session_id = a.session_id AND e.seq = a.event_seq WHERE a.session_id = ? ORDER BY a.active_position"
      : "SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq";
    const rows = db.prepare(query).all(sessionId) as {
      event_json: string | null;
      event_zstd: Uint8Array | null;
      event_utf8_bytes: number | null;
    }[];
    let bytes = 0;
    const events: unknown[] = [];
    for (const row of rows) {
      if (row.event_json !== null) {
        bytes += Buffer.byteLength(row.event_json);
        events.push(parsed(row.event_json));
      } else if (row.event_zstd) {
        bytes += row.event_utf8_bytes ?? 0;
        events.push(parsed(zlib.zstdDecompressSync(row.event_zstd).toString("utf8")));
      }
    }
    return { bytes, ...tally(events, count), store: "sqlite" };
  } finally {
    db.close();
  }
}

/**
 * Measures the active transcript of `sessionKey` for agent `main` under a host state dir.
 * Never throws: an unreadable store reads as `{ store: "none" }` with zeros.
 */
export async function measureTranscript(
  stateDir: string,
  sessionKey: string,
  count: (text: string) => number,
): Promise<TranscriptSize> {
  const agentDir = path.join(stateDir, "agents", "main");
  try {
    const db = path.join(agentDir, "agent", "openclaw-agent.sqlite");
    if (existsSync(db)) {
      const size = await sqliteSize(db, sessionKey, count);
      if (size.bytes > 0) return size;
    }
    const file = await activeJsonl(path.join(agentDir, "sessions"), sessionKey);
    if (!file) return { bytes: 0, tokens: 0, messages: 0, store: "none" };
    const events = (await readJsonlTranscript(file)).branch.map((e) => e.fields);
    // The host writes each entry as JSON.stringify of it, one per line.
    const bytes = events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + 1, 0);
    return { bytes, ...tally(events, count), store: "jsonl" };
  } catch {
    return { bytes: 0, tokens: 0, messages: 0, store: "none" };
  }
}

/** Artifacts in context-ledger's store under a host state dir (count and stored bytes). */
export async function measureArtifacts(stateDir: string): Promise<{ count: number; bytes: number }> {
  const agents = path.join(stateDir, "context-ledger", "agents");
  let count = 0;
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) {
        count++;
        bytes += (await fsp.stat(full).catch(() => ({ size: 0 }))).size;
      }
    }
  };
  for (const agent of await fsp.readdir(agents).catch(() => [] as string[]))
    await walk(path.join(agents, agent, "artifacts", "blobs"));
  return { count, bytes };
}
