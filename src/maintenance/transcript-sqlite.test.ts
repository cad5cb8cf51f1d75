import path from "node:path";
import zlib from "node:zlib";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import {
  locateSqliteTranscript,
  readSqliteActiveBranch,
  sqliteProjectionCurrent,
  waitForSqliteProjection,
} from "./transcript-sqlite.js";

const tempDir = useTempDir("cl-sqlite-");

// The two tables the reader uses, with 2026.9.6's columns (dist/worker/worker.mjs) or, for
// `schema: "2026.8"`, 2026.8.2's (no compressed column: every row is JSON).
function makeStore(schema: "2026.8" | "2026.9" = "2026.9"): string {
  const file = path.join(tempDir(), "openclaw-agent.sqlite");
  const db = new DatabaseSync(file);
  const compressed = schema === "2026.9" ? ", event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT" : "";
  db.exec(`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL${compressed}, PRIMARY KEY (session_id, seq));
    CREATE TABLE session_transcript_active_events (session_id TEXT NOT NULL, active_position INTEGER NOT NULL, event_seq INTEGER NOT NULL,
    message_position INTEGER, context_eligible INTEGER, PRIMARY KEY (session_id, active_position));`);
  const events = [
    { type: "session", id: "s0" },
    { type: "message", id: "e1", parentId: null, message: { role: "user", content: "hi" } },
    {
      type: "message",
      id: "e2",
      parentId: "e1",
      message: { role: "toolResult", toolCallId: "callx1", content: [{ type: "text", text: "x".repeat(5000) }] },
    },
    { type: "message", id: "old", parentId: "e1", message: { role: "assistant", content: "abandoned branch" } },
    { type: "message", id: "e3", parentId: "e2", message: { role: "assistant", content: "done" } },
  ];
  const insert =
    schema === "2026.9"
      ? db.prepare(
          "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes) VALUES (?, ?, ?, 0, ?, ?)",
        )
      : db.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)");
  events.forEach((e, seq) => {
    const json = JSON.stringify(e);
    // Big rows are stored compressed, as 2026.9.x does.
    if (schema === "2026.8") insert.run("sess-1", seq, json);
    else if (json.length > 1000)
      insert.run("sess-1", seq, null, zlib.zstdCompressSync(Buffer.from(json)), Buffer.byteLength(json));
    else insert.run("sess-1", seq, json, null, null);
  });
  const active = db.prepare(
    "INSERT INTO session_transcript_active_events (session_id, active_position, event_seq) VALUES (?, ?, ?)",
  );
  [0, 1, 2, 4].forEach((seq, pos) => active.run("sess-1", pos, seq));
  db.close();
  return file;
}

describe("SQLite transcript (2026.8.x onwards)", () => {
  it("reads the active branch's message entries with their ids, zstd rows included, abandoned branches left out", async () => {
    const file = makeStore();
    const entries = await readSqliteActiveBranch({ file, sessionId: "sess-1" });
    expect(entries?.map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
    expect((entries?.[1]?.message.content as { text: string }[])[0]?.text).toHaveLength(5000);
    expect(await readSqliteActiveBranch({ file, sessionId: "other" })).toEqual([]);
  });

  it("reads 2026.8.2's store, whose rows have no compressed column", async () => {
    const entries = await readSqliteActiveBranch({ file: makeStore("2026.8"), sessionId: "sess-1" });
    expect(entries?.map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
    expect((entries?.[1]?.message.content as { text: string }[])[0]?.text).toHaveLength(5000);
  });

  it("locates the agent database next to agentDir, and says undefined when there is none", () => {
    const file = makeStore();
    expect(locateSqliteTranscript({ sessionId: "sess-1", agentDir: path.dirname(file), agentId: "main" })).toEqual({
      file,
      sessionId: "sess-1",
    });
    expect(locateSqliteTranscript({ sessionId: "sess-1", agentDir: "/nonexistent", agentId: "main" })).toBeUndefined();
    expect(
      locateSqliteTranscript({ sessionId: undefined, agentDir: path.dirname(file), agentId: "main" }),
    ).toBeUndefined();
  });

  it("answers undefined for a file that is not such a store", async () => {
    expect(
      await readSqliteActiveBranch({ file: path.join(tempDir(), "missing.sqlite"), sessionId: "s" }),
    ).toBeUndefined();
  });

  describe("the host's projection of the session (2026.9.x re-indexes after a rewrite)", () => {
    // 2026.9.6's index state table (dist/worker/worker.mjs), for the store above (events 0..4).
    function withIndexState(file: string, indexedSeq: number, needsRebuild: 0 | 1): DatabaseSync {
      const db = new DatabaseSync(file);
      db.exec(`CREATE TABLE session_transcript_index_state (session_id TEXT PRIMARY KEY, indexed_seq INTEGER NOT NULL,
        leaf_event_id TEXT, needs_rebuild INTEGER NOT NULL, active_event_count INTEGER, active_message_count INTEGER, updated_at TEXT)`);
      db.prepare(
        "INSERT INTO session_transcript_index_state (session_id, indexed_seq, needs_rebuild) VALUES (?, ?, ?)",
      ).run("sess-1", indexedSeq, needsRebuild);
      return db;
    }

    it("is current when the index covers the newest event, not while a rebuild is pending or events are unindexed", async () => {
      const file = makeStore();
      const db = withIndexState(file, 4, 0);
      expect(await sqliteProjectionCurrent({ file, sessionId: "sess-1" })).toBe(true);
      db.prepare("UPDATE session_transcript_index_state SET needs_rebuild = 1").run();
      expect(await sqliteProjectionCurrent({ file, sessionId: "sess-1" })).toBe(false);
      db.prepare("UPDATE session_transcript_index_state SET needs_rebuild = 0, indexed_seq = 3").run();
      expect(await sqliteProjectionCurrent({ file, sessionId: "sess-1" })).toBe(false);
      db.close();
      // A session with no events has nothing to index.
      expect(await sqliteProjectionCurrent({ file, sessionId: "empty" })).toBe(true);
    });

    it("says undefined where the layout keeps no index state (2026.8.2) or there is no database", async () => {
      expect(await sqliteProjectionCurrent({ file: makeStore("2026.8"), sessionId: "sess-1" })).toBeUndefined();
      expect(
        await sqliteProjectionCurrent({ file: path.join(tempDir(), "missing.sqlite"), sessionId: "s" }),
      ).toBeUndefined();
    });

    it("waits while the host re-indexes, and returns once the index is current", async () => {
      const file = makeStore();
      const db = withIndexState(file, 2, 1);
      const reindexed = new Promise<number>((resolve) =>
        setTimeout(() => {
          db.prepare("UPDATE session_transcript_index_state SET needs_rebuild = 0, indexed_seq = 4").run();
          resolve(Date.now());
        }, 150),
      );
      const waited = await waitForSqliteProjection({ file, sessionId: "sess-1" }, { timeoutMs: 5_000 });
      const returnedAt = Date.now();
      expect(waited.current).toBe(true);
      expect(returnedAt).toBeGreaterThanOrEqual(await reindexed);
      db.close();
    });

    it("gives up after its timeout and says the index is still stale", async () => {
      const file = makeStore();
      withIndexState(file, 2, 1).close();
      const waited = await waitForSqliteProjection({ file, sessionId: "sess-1" }, { timeoutMs: 100 });
      expect(waited.current).toBe(false);
      expect(waited.waitedMs).toBeGreaterThanOrEqual(100);
    });
  });
});
