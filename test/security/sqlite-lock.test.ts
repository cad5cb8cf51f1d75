import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { readSqliteActiveBranch } from "../../src/maintenance/transcript-sqlite.js";
import { useTempDir } from "../support/temp-dir.js";

const tempDir = useTempDir("cl-sqlite-lock-");

describe("a synchronous SQLite read behind another connection's exclusive lock", () => {
  it("gives up within a short bound instead of stalling the event loop", async () => {
    const file = path.join(tempDir(), "openclaw-agent.sqlite");
    const host = new DatabaseSync(file);
    host.exec(`CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT);
      CREATE TABLE session_transcript_active_events (session_id TEXT, active_position INTEGER, event_seq INTEGER);`);
    host.exec("BEGIN EXCLUSIVE");
    try {
      const started = performance.now();
      const entries = await readSqliteActiveBranch({ file, sessionId: "sess-1" });
      const elapsed = performance.now() - started;
      expect(entries).toBeUndefined();
      // A bound, not a speed target: the old 2 s busy wait fails it, a short wait passes on a loaded machine.
      expect(elapsed).toBeLessThan(1000);
    } finally {
      host.exec("ROLLBACK");
      host.close();
    }
  });
});
