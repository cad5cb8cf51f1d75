import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { zstdCompressSync } from "node:zlib";
import type { CliIo } from "../../src/cli/core/cli-io.js";

/** Captured output of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** An isolated temp folder with a host state dir and HOME inside. */
export async function makeTempState(
  prefix: string,
): Promise<{ dir: string; state: string; home: string; env: NodeJS.ProcessEnv }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `cl-${prefix}-`));
  const state = path.join(dir, "state");
  const home = path.join(dir, "home");
  await fsp.mkdir(state, { recursive: true });
  await fsp.mkdir(home, { recursive: true });
  return { dir, state, home, env: { HOME: home, OPENCLAW_STATE_DIR: state, PATH: "" } };
}

/** Runs one command function with captured streams. */
export async function runWith(
  fn: (argv: string[], io: CliIo) => Promise<number>,
  argv: string[],
  env: NodeJS.ProcessEnv,
  options: { stderrTty?: boolean } = {},
): Promise<CliRun> {
  const out = new PassThrough();
  const err = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (options.stderrTty) err.isTTY = true;
  const chunks: { out: Buffer[]; err: Buffer[] } = { out: [], err: [] };
  out.on("data", (c: Buffer) => chunks.out.push(c));
  err.on("data", (c: Buffer) => chunks.err.push(c));
  const code = await fn(argv, { stdout: out, stderr: err, stdin: new PassThrough(), env });
  return {
    code,
    stdout: Buffer.concat(chunks.out).toString("utf8"),
    stderr: Buffer.concat(chunks.err).toString("utf8"),
  };
}

/** Deterministic command output of exactly `chars` chars (hex-ish lines, poorly compressible). */
export function commandOutput(seed: string, chars: number): string {
  let out = "";
  for (let i = 0; out.length < chars; i++) {
    out += `${seed} line ${i} ${createHash("sha256").update(`${seed}:${i}`).digest("hex")}\n`;
  }
  return out.slice(0, chars);
}

/** One generated 2026.4.24 session: its JSONL text and the payloads it holds. */
export interface BloatedSession {
  text: string;
  sessionId: string;
  /** Per turn: tool-result entry id, its text and aggregated payloads. */
  tools: { entryId: string; text: string; aggregated: string }[];
}

/**
 * A session in the 2026.4.24 JSONL entry format: a header, then per turn a
 * user message, an assistant tool call, an `exec` result whose text and
 * `details.aggregated` are `outputChars` long, and a long assistant answer.
 */
export function bloatedSession(
  options: { turns?: number; outputChars?: number; answerChars?: number; sessionId?: string } = {},
): BloatedSession {
  const turns = options.turns ?? 6;
  const sessionId = options.sessionId ?? "0b5e7a1c-6f0e-4c55-9a51-3c2d1e0f9a01";
  const t0 = Date.parse("2026-04-25T10:00:00.000Z");
  const lines: unknown[] = [
    { type: "session", version: 3, id: sessionId, timestamp: new Date(t0).toISOString(), cwd: "/work" },
  ];
  const tools: BloatedSession["tools"] = [];
  let parentId: string | null = null;
  let n = 0;
  const push = (message: Record<string, unknown>) => {
    const id = `e${String(++n).padStart(4, "0")}`;
    const timestamp = new Date(t0 + n * 1000).toISOString();
    lines.push({ type: "message", id, parentId, timestamp, message: { ...message, timestamp: t0 + n * 1000 } });
    parentId = id;
    return id;
  };
  for (let t = 0; t < turns; t++) {
    push({ role: "user", content: [{ type: "text", text: `turn ${t}: run the build and explain` }] });
    const callId = `call_${t}`;
    push({
      role: "assistant",
      content: [{ type: "toolCall", id: callId, name: "exec", arguments: { command: `make build-${t}` } }],
      stopReason: "toolUse",
    });
    const output = commandOutput(`t${t}`, options.outputChars ?? 150_000);
    const aggregated = `${output}\n[exit code 0]`;
    const entryId = push({
      role: "toolResult",
      toolCallId: callId,
      toolName: "exec",
      content: [{ type: "text", text: output }],
      details: { status: "completed", exitCode: 0, durationMs: 1234, aggregated, cwd: "/work" },
      isError: false,
    });
    tools.push({ entryId, text: output, aggregated });
    push({
      role: "assistant",
      content: [{ type: "text", text: commandOutput(`answer${t}`, options.answerChars ?? 12_000) }],
      stopReason: "stop",
    });
  }
  return { text: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`, sessionId, tools };
}

/** Writes a generated session under `<state>/agents/<agent>/sessions/<sessionId>.jsonl`. */
export async function writeHostSession(state: string, agentId: string, session: BloatedSession): Promise<string> {
  const dir = path.join(state, "agents", agentId, "sessions");
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${session.sessionId}.jsonl`);
  await fsp.writeFile(file, session.text, { mode: 0o600 });
  return file;
}

/**
 * Writes one session into the agent's 2026.9.x SQLite transcript store (`<state>/agents/<agent>/agent/
 * openclaw-agent.sqlite`): `session_windows` maps the key to the id, `transcript_events` holds the events as JSON,
 * rows over 1,000 bytes zstd-compressed as 2026.9.x stores them. Adds to an existing database.
 */
export async function writeHostSqliteSession(
  state: string,
  agentId: string,
  session: { sessionKey: string; sessionId: string; events: unknown[] },
): Promise<string> {
  const dir = path.join(state, "agents", agentId, "agent");
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, "openclaw-agent.sqlite");
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(file);
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS session_windows (session_id TEXT PRIMARY KEY, session_key TEXT NOT NULL, created_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
      event_zstd BLOB, event_utf8_bytes INTEGER, PRIMARY KEY (session_id, seq));`);
    db.prepare("INSERT INTO session_windows VALUES (?, ?, ?)").run(session.sessionId, session.sessionKey, Date.now());
    const insert = db.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?)");
    session.events.forEach((event, seq) => {
      const json = JSON.stringify(event);
      if (json.length > 1000)
        insert.run(session.sessionId, seq, null, seq, zstdCompressSync(Buffer.from(json)), Buffer.byteLength(json));
      else insert.run(session.sessionId, seq, json, seq, null, null);
    });
  } finally {
    db.close();
  }
  return file;
}
