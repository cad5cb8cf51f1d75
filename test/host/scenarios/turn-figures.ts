/**
 * A scenario's turn figures, measured from outside the host: each request's output
 * allowance and the size of the host's own transcript for the scenario's session
 * (JSONL on 2026.4.24-2026.7.x, SQLite `transcript_events` on 2026.8.x and later),
 * kept per run so that legacy's figures can be compared. What the user saw of a turn
 * is `../turn-as-seen.ts`.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import type { MockRequest } from "../mock-model.js";
import type { ScenarioSession } from "./scenario.js";

/** The output allowance a request asked for (`max_completion_tokens` or `max_tokens`), when it set one. */
export function outputAllowance(request: MockRequest): number | undefined {
  const body = request.body;
  const v = body.max_completion_tokens ?? body.max_tokens;
  return typeof v === "number" ? v : undefined;
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await fsp.stat(file)).size;
  } catch {
    return 0;
  }
}

async function walk(dir: string, match: (name: string) => boolean, out: string[] = []): Promise<string[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) await walk(full, match, out);
    else if (match(e.name)) out.push(full);
  }
  return out;
}

/** Where a session's transcript lives and how big it is. */
export interface TranscriptSize {
  store: "jsonl" | "sqlite" | "none";
  /** UTF-8 bytes of the session's current transcript (uncompressed for SQLite rows). */
  bytes: number;
  /** Transcript entries (JSONL lines or `transcript_events` rows). */
  entries: number;
  /** Bytes of the active branch only (what the host replays; rewrites leave the old branch behind in the store). */
  activeBytes?: number;
}

/** The host's state folder of the session's agent (`agents/<id>` of `agent:<id>:<name>`). */
function agentDirOf(session: Pick<ScenarioSession, "env" | "sessionKey">): string {
  const agentId = /^agent:([^:]+):/.exec(session.sessionKey)?.[1];
  if (!agentId) throw new Error(`Expected a session key agent:<id>:<name>, got "${session.sessionKey}"`);
  return path.join(session.env.stateDir, "agents", agentId);
}

/**
 * Size of the session's current transcript (in its agent's store). JSONL: the file named by the
 * host's `sessions.json` for the key. SQLite: the uncompressed size of the session's
 * `transcript_events` rows (`event_utf8_bytes`, else `length(event_json)`).
 */
export async function transcriptSize(session: Pick<ScenarioSession, "env" | "sessionKey">): Promise<TranscriptSize> {
  const agentDir = agentDirOf(session);
  const dbs = await walk(agentDir, (n) => n.endsWith(".sqlite"));
  for (const db of dbs) {
    const size = await sqliteTranscriptSize(db, session.sessionKey);
    if (size) return size;
  }
  const file = await jsonlSessionFile(session);
  if (file) {
    const text = await fsp.readFile(file, "utf8").catch(() => "");
    const lines = text.split("\n").filter((l) => l.trim());
    return { store: "jsonl", bytes: await fileSize(file), entries: lines.length, activeBytes: jsonlActiveBytes(lines) };
  }
  return { store: "none", bytes: 0, entries: 0 };
}

/** The session's JSONL transcript (2026.4.x-2026.7.x), from the host's `sessions.json`; undefined on SQLite lines. */
/** The JSONL transcript file the host names for the session (undefined on a SQLite line). */
export async function jsonlSessionFile(
  session: Pick<ScenarioSession, "env" | "sessionKey">,
): Promise<string | undefined> {
  const agentDir = agentDirOf(session);
  try {
    const store = JSON.parse(await fsp.readFile(path.join(agentDir, "sessions", "sessions.json"), "utf8")) as Record<
      string,
      { sessionId?: string; sessionFile?: string }
    >;
    const entry = store[session.sessionKey] ?? store[session.sessionKey.toLowerCase()];
    return (
      entry?.sessionFile ?? (entry?.sessionId ? path.join(agentDir, "sessions", `${entry.sessionId}.jsonl`) : undefined)
    );
  } catch {
    // no JSONL store on this line
    return undefined;
  }
}

/** The `compaction` entries of the session's JSONL transcript: who wrote them (`details.engine`) and their summary. */
export async function hostCompactionEntries(
  session: ScenarioSession,
): Promise<{ engine: unknown; summary: string; firstKeptEntryId: unknown }[]> {
  const file = await jsonlSessionFile(session);
  const text = file ? await fsp.readFile(file, "utf8").catch(() => "") : "";
  const out: { engine: unknown; summary: string; firstKeptEntryId: unknown }[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"compaction"')) continue;
    try {
      const e = JSON.parse(line) as {
        type?: unknown;
        summary?: unknown;
        firstKeptEntryId?: unknown;
        details?: { engine?: unknown };
      };
      if (e.type === "compaction")
        out.push({ engine: e.details?.engine, summary: String(e.summary ?? ""), firstKeptEntryId: e.firstKeptEntryId });
    } catch {
      // a torn last line while the host writes
    }
  }
  return out;
}

/** UTF-8 bytes of the JSONL lines on the parent chain of the last entry (the active branch). */
export function jsonlActiveBytes(lines: readonly string[]): number {
  const byId = new Map<string, { parentId: string | null; bytes: number }>();
  let last: string | undefined;
  let header = 0;
  for (const line of lines) {
    try {
      const e = JSON.parse(line) as { id?: unknown; parentId?: unknown };
      if (typeof e.id !== "string") {
        header += Buffer.byteLength(line) + 1;
        continue;
      }
      byId.set(e.id, {
        parentId: typeof e.parentId === "string" ? e.parentId : null,
        bytes: Buffer.byteLength(line) + 1,
      });
      last = e.id;
    } catch {
      // a torn line belongs to no branch
    }
  }
  let bytes = header;
  const seen = new Set<string>();
  for (let id = last; id !== undefined && !seen.has(id);) {
    seen.add(id);
    const e = byId.get(id);
    if (!e) break;
    bytes += e.bytes;
    id = e.parentId ?? undefined;
  }
  return bytes;
}

async function sqliteTranscriptSize(file: string, sessionKey: string): Promise<TranscriptSize | undefined> {
  const { DatabaseSync } = (await import("node:sqlite")) as typeof import("node:sqlite");
  let db: import("node:sqlite").DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true });
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type='table' AND name IN ('transcript_events','session_nodes')")
      .all() as { name: string }[];
    if (tables.length < 2) return undefined;
    const node = db
      .prepare("SELECT current_session_id AS id FROM session_nodes WHERE session_key = ?")
      .get(sessionKey) as { id?: string } | undefined;
    if (!node?.id) return undefined;
    // 2026.9.6 stores rows zstd-compressed with their UTF-8 size; 2026.8.2 has only `event_json` (no such column).
    const columns = new Set(
      (db.prepare("PRAGMA table_info(transcript_events)").all() as { name: string }[]).map((c) => c.name),
    );
    const size = (alias: string): string =>
      columns.has("event_utf8_bytes")
        ? `COALESCE(${alias}event_utf8_bytes, LENGTH(CAST(${alias}event_json AS BLOB)))`
        : `LENGTH(CAST(${alias}event_json AS BLOB))`;
    const row = db
      .prepare(
        `SELECT COUNT(*) AS n, COALESCE(SUM(${size("")}), 0) AS bytes FROM transcript_events WHERE session_id = ?`,
      )
      .get(node.id) as { n: number; bytes: number };
    let activeBytes: number | undefined;
    try {
      const active = db
        .prepare(
          `SELECT COALESCE(SUM(${size("e.")}), 0) AS bytes FROM session_transcript_active_events a JOIN transcript_events e ON e.session_id = a.session_id AND e.seq = a.event_seq WHERE a.session_id = ?`,
        )
        .get(node.id) as { bytes: number };
      activeBytes = Number(active.bytes);
    } catch {
      activeBytes = undefined;
    }
    return {
      store: "sqlite",
      bytes: Number(row.bytes),
      entries: Number(row.n),
      ...(activeBytes !== undefined ? { activeBytes } : {}),
    };
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/** Where scenario figures are written for other runs (legacy's comparison) and helpers to read. */
export const FIGURES_DIR = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  "../../../.cache/scenario-figures",
);

/** Writes one run's figures as JSON (`<scenario>-<version>-<engine>.json`) and prints them. */
export async function recordFigures(
  name: string,
  session: ScenarioSession,
  figures: Record<string, unknown>,
): Promise<void> {
  await fsp.mkdir(FIGURES_DIR, { recursive: true });
  const file = path.join(FIGURES_DIR, `${name}-${session.version}-${session.engineId}.json`);
  await fsp.writeFile(file, `${JSON.stringify({ ...figures, runId: RUN_ID }, null, 2)}\n`);
  console.log(`[${name}] ${session.version} ${session.engineId} ${JSON.stringify(figures)}`);
}

/** One test process: a comparison reads only figures this run wrote (never a stale file of an earlier run). */
const RUN_ID = `${process.pid}-${Date.now()}`;

/** Figures written by {@link recordFigures} for another engine in this test process, if that run happened. */
export async function readFigures(
  name: string,
  version: string,
  engineId: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    const figures = JSON.parse(
      await fsp.readFile(path.join(FIGURES_DIR, `${name}-${version}-${engineId}.json`), "utf8"),
    ) as Record<string, unknown>;
    return figures.runId === RUN_ID ? figures : undefined;
  } catch {
    return undefined;
  }
}
