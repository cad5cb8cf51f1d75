import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { runSessionCommand, SESSION_CLEAN_SCHEMA, type SessionCleanReport } from "../../src/cli/sessions/session.js";
import { parseStubHandle, STUB_PREFIX } from "../../src/results/stub.js";
import { artifactRoot } from "../../src/state/paths.js";
import { bloatedSession, makeTempState, runWith, writeHostSession, type BloatedSession } from "./cli-fixtures.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

interface Line {
  type: string;
  id: string;
  parentId: string | null;
  message?: {
    role: string;
    content: { type: string; text?: string }[];
    details?: { aggregated?: string; exitCode?: number };
  };
}
const parseLines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);

describe("session clean on a bloated 2026.4.24 JSONL session", () => {
  let env: NodeJS.ProcessEnv;
  let state: string;
  let dir: string;
  let file: string;
  let session: BloatedSession;

  beforeEach(async () => {
    ({ env, state, dir } = await makeTempState("clean"));
    session = bloatedSession();
    file = await writeHostSession(state, "main", session);
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it("dry run reports per-session bytes and writes nothing", async () => {
    const run = await runWith(runSessionCommand, ["clean", "--all", "--dry-run", "--json"], env);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as SessionCleanReport;
    expect(report.schema).toBe(SESSION_CLEAN_SCHEMA);
    expect(report.sessions).toHaveLength(1);
    const s = report.sessions[0]!;
    expect(s.status).toBe("planned");
    expect(s.entries).toBe(24);
    expect(s.rewrittenEntries).toBe(6);
    expect(s.payloads).toHaveLength(12);
    expect(s.bytesBefore).toBe(Buffer.byteLength(session.text));
    expect(s.bytesFreed).toBe(s.bytesBefore - s.bytesAfter);
    expect(s.bytesFreed).toBeGreaterThan(1_780_000);
    expect(await fsp.readFile(file, "utf8")).toBe(session.text);
    await expect(fsp.stat(path.join(state, "context-ledger"))).rejects.toThrow();

    const human = await runWith(runSessionCommand, ["clean", "--all", "--dry-run"], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("planned");
    expect(human.stdout).toContain(`Would shrink the session file(s) by`);
    expect(human.stdout).toContain(`${s.bytesFreed.toLocaleString("en-US")} bytes`);
  });

  it("lists and cleans only transcripts, never the host's run traces or checkpoints beside them", async () => {
    const sessions = path.dirname(file);
    // Companions the host writes beside a transcript, with a transcript's content: only the name tells them apart.
    const companions = [
      `${session.sessionId}.trajectory.jsonl`,
      `${session.sessionId}.checkpoint.0b7c7d1e-3f1a-4c2b-9d8e-5a6f7b8c9d0e.jsonl`,
    ].map((n) => path.join(sessions, n));
    for (const c of companions) await fsp.writeFile(c, session.text);
    const dry = JSON.parse(
      (await runWith(runSessionCommand, ["clean", "--all", "--dry-run", "--json"], env)).stdout,
    ) as SessionCleanReport;
    expect(dry.sessions.map((s) => path.basename(s.file))).toEqual([`${session.sessionId}.jsonl`]);
    const real = await runWith(runSessionCommand, ["clean", "--all", "--json"], env);
    expect(real.code).toBe(0);
    for (const c of companions) expect(await fsp.readFile(c, "utf8")).toBe(session.text);
    const named = await runWith(runSessionCommand, ["clean", "--session", companions[0]!], env);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain("is not a session transcript");
    expect(await fsp.readFile(companions[0]!, "utf8")).toBe(session.text);
    expect((await fsp.readdir(sessions)).filter((n) => n.includes(".bak-"))).toHaveLength(1);
  });

  it("cleans losslessly: smaller file, backup, byte-exact artifacts, same ids and parentIds", async () => {
    const dry = JSON.parse(
      (await runWith(runSessionCommand, ["clean", "--all", "--dry-run", "--json"], env)).stdout,
    ) as SessionCleanReport;
    const run = await runWith(runSessionCommand, ["clean", "--session", session.sessionId, "--json"], env);
    expect(run.code).toBe(0);
    const s = (JSON.parse(run.stdout) as SessionCleanReport).sessions[0]!;
    expect(s.status).toBe("cleaned");
    expect(s.bytesFreed).toBe(dry.sessions[0]!.bytesFreed);
    expect(s.payloads.map((p) => p.handle)).toEqual(dry.sessions[0]!.payloads.map((p) => p.handle));

    const after = await fsp.readFile(file, "utf8");
    expect(Buffer.byteLength(after)).toBe(s.bytesAfter);
    expect(s.bytesAfter).toBeLessThan(100_000);
    expect(await fsp.readFile(s.backup!, "utf8")).toBe(session.text);
    expect(path.dirname(s.backup!)).toBe(path.dirname(file));
    expect(path.basename(s.backup!)).toMatch(/\.jsonl\.bak-\d{4}-\d\d-\d\dT/);
    expect((await fsp.stat(file)).mode & 0o777).toBe(0o600);

    const before = parseLines(session.text);
    const cleaned = parseLines(after);
    expect(cleaned.map((l) => [l.type, l.id, l.parentId])).toEqual(before.map((l) => [l.type, l.id, l.parentId]));

    const store = createArtifactStore({ root: artifactRoot(path.join(state, "context-ledger"), "main") });
    for (const tool of session.tools) {
      const entry = cleaned.find((l) => l.id === tool.entryId)!;
      const text = entry.message!.content[0]!.text!;
      expect(text.startsWith(STUB_PREFIX)).toBe(true);
      expect(sha(await store.readText(parseStubHandle(text)!))).toBe(sha(tool.text));
      const agg = entry.message!.details!.aggregated!;
      expect(sha(await store.readText(parseStubHandle(agg)!))).toBe(sha(tool.aggregated));
      expect(entry.message!.details!.exitCode).toBe(0);
    }
    // Assistant answers and user turns are not payloads: byte-identical lines.
    const origLines = session.text.split("\n");
    const newLines = after.split("\n");
    const untouched = origLines.filter((l, i) => l === newLines[i]).length;
    expect(untouched).toBe(origLines.length - 6);

    const again = await runWith(runSessionCommand, ["clean", "--all", "--json"], env);
    expect((JSON.parse(again.stdout) as SessionCleanReport).sessions[0]!.status).toBe("unchanged");
    expect(await fsp.readFile(file, "utf8")).toBe(after);
  });

  it("says the backup keeps the space; session backups lists and prunes it", async () => {
    const human = await runWith(runSessionCommand, ["clean", "--all"], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Disk is freed only once the backups go: [\d.]+ MiB in 1 backup\(s\)/);
    const list = JSON.parse((await runWith(runSessionCommand, ["backups", "--json"], env)).stdout);
    expect(list).toMatchObject({
      schema: "context-ledger.session.backups.v1",
      totals: { count: 1, bytes: Buffer.byteLength(session.text), removed: 0 },
    });
    const young = JSON.parse(
      (await runWith(runSessionCommand, ["backups", "--prune", "--older-than", "7d", "--json"], env)).stdout,
    );
    expect(young.totals.removed).toBe(0);
    const pruned = await runWith(runSessionCommand, ["backups", "--prune"], env);
    expect(pruned.stdout).toContain("Removed 1 backup, freed");
    expect(await fsp.readFile(file, "utf8")).not.toBe(session.text);
    expect(JSON.parse((await runWith(runSessionCommand, ["backups", "--json"], env)).stdout).totals.count).toBe(0);
  });

  it("honours --keep-last, --tools and --min-chars", async () => {
    const keep = JSON.parse(
      (await runWith(runSessionCommand, ["clean", "--all", "--dry-run", "--json", "--keep-last", "4"], env)).stdout,
    ) as SessionCleanReport;
    expect(keep.sessions[0]!.rewrittenEntries).toBe(5);
    expect(keep.sessions[0]!.payloads.some((p) => p.entryId === session.tools[5]!.entryId)).toBe(false);
    const other = JSON.parse(
      (await runWith(runSessionCommand, ["clean", "--all", "--dry-run", "--json", "--tools", "browser,read"], env))
        .stdout,
    ) as SessionCleanReport;
    expect(other.sessions[0]!.status).toBe("unchanged");
    expect(other.sessions[0]!.payloads).toHaveLength(0);
    const big = JSON.parse(
      (await runWith(runSessionCommand, ["clean", "--all", "--dry-run", "--json", "--min-chars", "150005"], env))
        .stdout,
    ) as SessionCleanReport;
    expect(big.sessions[0]!.payloads.map((p) => p.field)).toEqual(Array(6).fill("details.aggregated"));
  });

  it("refuses a session the gateway holds, --force included, naming its pid; ignores a stale lock", async () => {
    await fsp.writeFile(`${file}.lock`, JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString() }));
    const dry = await runWith(runSessionCommand, ["clean", "--all", "--dry-run"], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`held by pid ${process.pid}`);
    expect(dry.stdout).toContain("a real clean is refused");
    const refused = await runWith(runSessionCommand, ["clean", "--all"], env);
    expect(refused.code).toBe(5);
    expect(refused.stdout).toContain(`held by pid ${process.pid}`);
    expect(await fsp.readFile(file, "utf8")).toBe(session.text);

    const forced = await runWith(runSessionCommand, ["clean", "--all", "--force", "--json"], env);
    expect(forced.code).toBe(5);
    const forcedReport = (JSON.parse(forced.stdout) as SessionCleanReport).sessions[0]!;
    expect(forcedReport).toMatchObject({ status: "refused" });
    expect(forcedReport.reason).toContain(`held by pid ${process.pid}`);
    expect(await fsp.readFile(file, "utf8")).toBe(session.text);
    expect(await fsp.readFile(`${file}.lock`, "utf8")).toContain(String(process.pid));

    const other = await writeHostSession(state, "main", bloatedSession({ turns: 1, sessionId: "second" }));
    const deadPid = spawnSync(process.execPath, ["-e", "0"]).pid!;
    await fsp.writeFile(`${other}.lock`, JSON.stringify({ pid: deadPid, createdAt: new Date().toISOString() }));
    const stale = await runWith(runSessionCommand, ["clean", "--session", other, "--json"], env);
    expect(stale.code).toBe(0);
    expect((JSON.parse(stale.stdout) as SessionCleanReport).sessions[0]!.status).toBe("cleaned");
  });

  it("stashes into the store of the agent whose session folder holds the file", async () => {
    const opsFile = await writeHostSession(
      state,
      "ops",
      bloatedSession({ turns: 1, outputChars: 5_000, sessionId: "ops-1" }),
    );
    const run = await runWith(runSessionCommand, ["clean", "--session", opsFile, "--json"], env);
    const report = JSON.parse(run.stdout) as SessionCleanReport;
    expect(report.agentId).toBe("ops");
    const ops = createArtifactStore({ root: artifactRoot(path.join(state, "context-ledger"), "ops") });
    expect((await ops.stats()).count).toBe(2);
    expect((await ops.readMeta(report.sessions[0]!.payloads[0]!.handle)).origin).toEqual({
      toolName: "exec",
      toolCallId: "call_0",
      agentId: "ops",
      sessionKey: "ops-1",
    });
  });

  it("takes the host's lock while rewriting and releases it", async () => {
    await runWith(runSessionCommand, ["clean", "--all"], env);
    await expect(fsp.stat(`${file}.lock`)).rejects.toThrow();
  });

  it("shows progress on a terminal only", async () => {
    const piped = await runWith(runSessionCommand, ["clean", "--all", "--dry-run"], env);
    expect(piped.stderr).toBe("");
    const tty = await runWith(runSessionCommand, ["clean", "--all", "--dry-run"], env, { stderrTty: true });
    expect(tty.stderr).toContain("planned sessions 1/1");
  });

  it("usage errors and missing sessions have their exit codes", async () => {
    expect((await runWith(runSessionCommand, ["clean"], env)).code).toBe(1);
    expect((await runWith(runSessionCommand, ["clean", "--all", "--session", "x"], env)).code).toBe(1);
    expect((await runWith(runSessionCommand, ["clean", "--all", "--keep-last", "-3"], env)).code).toBe(1);
    expect((await runWith(runSessionCommand, ["scrub"], env)).code).toBe(1);
    expect((await runWith(runSessionCommand, ["clean", "--session", "nope"], env)).code).toBe(2);
    expect((await runWith(runSessionCommand, ["clean", "--all", "--agent", "ghost"], env)).code).toBe(2);
  });
});

describe("session clean on a SQLite host (2026.9.x)", () => {
  it("does not touch the database and says maintain() cannot pay down there yet", async () => {
    const { env, state, dir } = await makeTempState("sqlite");
    const db = path.join(state, "agents", "main", "agent", "openclaw-agent.sqlite");
    await fsp.mkdir(path.dirname(db), { recursive: true });
    await fsp.writeFile(db, "SQLite format 3\0");
    const run = await runWith(runSessionCommand, ["clean", "--all"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("maintain() cannot rewrite entries there yet");
    expect(await fsp.readFile(db, "utf8")).toBe("SQLite format 3\0");
    await fsp.rm(dir, { recursive: true, force: true });
  });
});
