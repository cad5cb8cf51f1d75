import path from "node:path";
import zlib from "node:zlib";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import { locateSqliteTranscript, readSqliteActiveBranch } from "./transcript-sqlite.js";

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
});
