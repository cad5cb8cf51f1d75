import { mkdtemp, rm } from "node:fs/promises";
import { DatabaseSync } from "node:sqlite";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteProjectionCurrent } from "../../src/maintenance/transcript-sqlite.js";
import { call, createTestEngine, logText, result, user, assistant } from "../support/engine-harness.js";

/**
 * 2026.9.6 re-indexes a session in the background after a rewrite; a turn that starts before the
 * index is current fails before the model ("Session transcript projection is rebuilding"). maintain() runs
 * inside the turn's run, so it returns only once the host's index covers the rewrite.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const SESSION = { sessionId: "sess-p", sessionKey: "agent:main:projection" };

/** A store with the tables the engine and the host's index use (2026.9.6 columns), index current. */
async function hostStore(pendingUser = false): Promise<{ file: string; db: DatabaseSync }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-projection-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, "openclaw-agent.sqlite");
  const db = new DatabaseSync(file);
  db.exec(`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
      event_zstd BLOB, PRIMARY KEY (session_id, seq));
    CREATE TABLE session_transcript_active_events (session_id TEXT NOT NULL, active_position INTEGER NOT NULL, event_seq INTEGER NOT NULL,
      PRIMARY KEY (session_id, active_position));
    CREATE TABLE session_transcript_index_state (session_id TEXT PRIMARY KEY, indexed_seq INTEGER NOT NULL, needs_rebuild INTEGER NOT NULL);`);
  const messages = [
    user("build it"),
    call("call_1", "exec"),
    result("call_1", "exec", logText(40_000, 3)),
    assistant("Answer 1: built."),
    ...(pendingUser ? [user("and now?")] : []),
  ];
  let parentId: string | null = null;
  messages.forEach((message, seq) => {
    const id = `e${seq}`;
    db.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)").run(
      SESSION.sessionId,
      seq,
      JSON.stringify({ type: "message", id, parentId, message }),
    );
    db.prepare(
      "INSERT INTO session_transcript_active_events (session_id, active_position, event_seq) VALUES (?, ?, ?)",
    ).run(SESSION.sessionId, seq, seq);
    parentId = id;
  });
  db.prepare("INSERT INTO session_transcript_index_state VALUES (?, ?, 0)").run(SESSION.sessionId, messages.length - 1);
  cleanups.push(async () => db.close());
  return { file, db };
}

/** The host's rewrite: re-appends the suffix, marks the index stale, and re-indexes `reindexMs` later. */
function hostRewrite(db: DatabaseSync, reindexMs: number) {
  const reindexed: Promise<number>[] = [];
  const calls: unknown[] = [];
  const rewriteTranscriptEntries = async (request: { replacements: unknown[] }) => {
    calls.push(request);
    const { seq } = db.prepare("SELECT MAX(seq) AS seq FROM transcript_events").get() as { seq: number };
    db.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)").run(
      SESSION.sessionId,
      seq + 1,
      JSON.stringify({
        type: "message",
        id: `r${seq + 1}`,
        parentId: null,
        message: { role: "assistant", content: "x" },
      }),
    );
    db.prepare("UPDATE session_transcript_index_state SET needs_rebuild = 1").run();
    reindexed.push(
      new Promise((resolve) =>
        setTimeout(() => {
          db.prepare("UPDATE session_transcript_index_state SET needs_rebuild = 0, indexed_seq = ?").run(seq + 1);
          resolve(Date.now());
        }, reindexMs),
      ),
    );
    return { changed: true, bytesFreed: 30_000, rewrittenEntries: request.replacements.length };
  };
  return { rewriteTranscriptEntries, reindexed, calls };
}

/** maintain() as 2026.9.6 calls it for the session: its store in `sessionTarget`, the host's rewrite in the context. */
function maintainOn(
  engine: { maintain(params: unknown): Promise<unknown> },
  storePath: string,
  rewriteTranscriptEntries: (request: { replacements: unknown[] }) => Promise<unknown>,
) {
  return engine.maintain({
    ...SESSION,
    sessionFile: SESSION.sessionKey,
    sessionTarget: { ...SESSION, storePath },
    runtimeContext: { rewriteTranscriptEntries },
  });
}

describe("maintain() on 2026.9.x waits for the host to re-index what it rewrote", () => {
  it("returns only once the host's index covers the rewrite", async () => {
    const t = await createTestEngine();
    cleanups.push(() => t.cleanup());
    const { file, db } = await hostStore();
    const host = hostRewrite(db, 300);
    const out = await maintainOn(t.engine, file, host.rewriteTranscriptEntries);
    const returnedAt = Date.now();
    expect(out).toMatchObject({ changed: true, rewrittenEntries: 1 });
    expect(host.reindexed).toHaveLength(1);
    expect(returnedAt).toBeGreaterThanOrEqual(await host.reindexed[0]!);
    expect(await sqliteProjectionCurrent({ file, sessionId: SESSION.sessionId })).toBe(true);
  });

  it("reads the branch only after a pending re-index settles (entry ids of a stale index may be gone)", async () => {
    const t = await createTestEngine();
    cleanups.push(() => t.cleanup());
    const { file, db } = await hostStore();
    db.prepare("UPDATE session_transcript_index_state SET needs_rebuild = 1").run();
    let settledAt = 0;
    setTimeout(() => {
      db.prepare("UPDATE session_transcript_index_state SET needs_rebuild = 0").run();
      settledAt = Date.now();
    }, 200);
    const host = hostRewrite(db, 10);
    const rewriteTranscriptEntries = async (request: { replacements: unknown[] }) => {
      expect(settledAt).toBeGreaterThan(0);
      return host.rewriteTranscriptEntries(request);
    };
    const out = await maintainOn(t.engine, file, rewriteTranscriptEntries);
    expect(out).toMatchObject({ changed: true, rewrittenEntries: 1 });
    expect(host.calls).toHaveLength(1);
  });
});

describe("maintain() before a turn on 2026.9.x", () => {
  it("leaves the transcript alone while the user's new message awaits its answer, in a served session too", async () => {
    const t = await createTestEngine();
    cleanups.push(() => t.cleanup());
    const { file, db } = await hostStore(true);
    // A session this engine has served before (not an adoption).
    t.services.sessions.updateBehind("main", SESSION.sessionKey, (s) => {
      s.turns = 5;
    });
    const host = hostRewrite(db, 10);
    const out = await maintainOn(t.engine, file, host.rewriteTranscriptEntries);
    expect(out).toMatchObject({ changed: false, reason: "turn_in_flight" });
    expect(host.calls).toHaveLength(0);
  });
});
