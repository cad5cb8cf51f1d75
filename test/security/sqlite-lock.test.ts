import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readSqliteActiveBranch, SQLITE_BUSY_WAIT_MS } from "../../src/maintenance/transcript-sqlite.js";
import { useTempDir } from "../support/temp-dir.js";

const tempDir = useTempDir("cl-sqlite-lock-");

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a synchronous SQLite read behind another connection's exclusive lock", () => {
  it("asks SQLite for a short busy wait, gives up behind the lock, and reads once the lock is gone", async () => {
    const file = path.join(tempDir(), "openclaw-agent.sqlite");
    const host = new DatabaseSync(file);
    host.exec(`CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT);
      CREATE TABLE session_transcript_active_events (session_id TEXT, active_position INTEGER, event_seq INTEGER);`);
    const exec = vi.spyOn(DatabaseSync.prototype, "exec");
    host.exec("BEGIN EXCLUSIVE");
    try {
      expect(await readSqliteActiveBranch({ file, sessionId: "sess-1" })).toBeUndefined();
    } finally {
      host.exec("ROLLBACK");
    }
    // The read is synchronous: SQLite's busy wait is how long it can hold the event loop behind the host's lock.
    expect(exec.mock.calls.map(([sql]) => sql)).toContain(`PRAGMA busy_timeout = ${SQLITE_BUSY_WAIT_MS}`);
    expect(SQLITE_BUSY_WAIT_MS).toBeLessThanOrEqual(100);
    expect(await readSqliteActiveBranch({ file, sessionId: "sess-1" })).toEqual([]);
    host.close();
  });
});
