import { promises as fsp } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { zstdCompressSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { scanReferencedHandles } from "../../src/cli/artifacts/artifact-references.js";
import { cleanSessionFile } from "../../src/cli/sessions/clean/clean-session-file.js";
import { parseConfig } from "../../src/config/parse-config.js";
import { resolveAgentSettings } from "../../src/config/parse-config.js";
import { isLedgerError } from "../../src/errors.js";
import { reclaimJsonlBranches } from "../../src/maintenance/jsonl-reclaim.js";
import { readReclaimedLines } from "../../src/maintenance/reclaimed-lines.js";
import { parseStubHandle } from "../../src/results/stub.js";
import { agentRoot } from "../../src/state/paths.js";
import { readReferenceIndex } from "../../src/state/reference-index.js";
import { saveSummary } from "../../src/summary/sidecar.js";
import { bloatedSession } from "../cli/cli-fixtures.js";
import { sealCheckpointChain } from "../support/checkpoint-chain.js";
import { jsonlOf, rewrittenSession } from "../support/rewritten-session.js";
import { call, createTestEngine, logText, result, user } from "../support/engine-harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fsp.rm(dir, { recursive: true, force: true }));
  return dir;
}
const HANDLES = /ledger:v1:sha256:[0-9a-f]{64}/g;
const handlesOf = (text: string) => [...new Set([...text.matchAll(HANDLES)].map((m) => m[0]))];

/** What `artifact gc --max-age 0` does: remove everything unreferenced. */
async function gcAll(agentDir: string) {
  const store = createArtifactStore({ root: path.join(agentDir, "artifacts") });
  const referenced = await scanReferencedHandles(agentDir);
  return store.gc({ maxAgeMs: -1, referenced });
}

describe("gc keeps every artifact something still cites", () => {
  it("after `session clean` (transcript outside any host layout: only the reference index knows it)", async () => {
    const root = await tempDir("ledger-gc-clean-");
    const agentDir = agentRoot(root, "main");
    const store = createArtifactStore({ root: path.join(agentDir, "artifacts") });
    const file = path.join(await tempDir("transcripts-"), "s1.jsonl");
    const session = bloatedSession({ turns: 3, outputChars: 20_000, answerChars: 500 });
    await writeFile(file, session.text);
    const settings = resolveAgentSettings(parseConfig({}), "main");
    const r = await cleanSessionFile({ file, agentId: "main", store, dryRun: false, settings });
    expect(r.status).toBe("cleaned");
    const cited = handlesOf(await fsp.readFile(file, "utf8"));
    expect(cited.length).toBeGreaterThanOrEqual(3);
    const report = await gcAll(agentDir);
    for (const h of cited) expect(await store.has(h), h).toBe(true);
    expect(report.removed.map((x) => x.handle).filter((h) => cited.includes(h))).toEqual([]);
    // Once the transcript is gone, its references go with it.
    await fsp.rm(file);
    await gcAll(agentDir);
    for (const h of cited) expect(await store.has(h)).toBe(false);
  });

  it("after a maintain() paydown: the stubs in the host transcript still fetch", async () => {
    const t = await createTestEngine({}, "2026.4");
    cleanups.push(() => t.cleanup());
    const file = path.join(await tempDir("transcripts-"), "s2.jsonl");
    const session = bloatedSession({ turns: 4, outputChars: 60_000, answerChars: 8_000, sessionId: "s2" });
    await writeFile(file, session.text);
    const written: Array<{ message: unknown }> = [];
    const rewriteTranscriptEntries = async (req: { replacements: Array<{ entryId: string; message: unknown }> }) => {
      written.push(...req.replacements);
      return { changed: true, bytesFreed: 1, rewrittenEntries: req.replacements.length };
    };
    const out = await t.engine.maintain({
      sessionId: "s2",
      sessionKey: "agent:main:s2",
      sessionFile: file,
      runtimeContext: { rewriteTranscriptEntries },
    });
    expect(out.changed).toBe(true);
    // The host writes the stubs into its transcript.
    await writeFile(
      file,
      `${session.text}${written.map((w) => JSON.stringify({ type: "message", message: w.message })).join("\n")}\n`,
    );
    const cited = handlesOf(JSON.stringify(written));
    expect(cited.length).toBeGreaterThan(0);
    await gcAll(agentRoot(t.dir, "main"));
    for (const h of cited) expect(await t.services.store("main").has(h), h).toBe(true);
  });

  it("after a transcript reclaim: the packed branches keep their parts, cited by the transcript or elsewhere", async () => {
    const root = await tempDir("ledger-gc-reclaim-");
    const agentDir = agentRoot(root, "main");
    const store = createArtifactStore({ root: path.join(agentDir, "artifacts") });
    const file = path.join(await tempDir("transcripts-"), "s5.jsonl");
    await writeFile(file, jsonlOf(rewrittenSession(16).lines));
    const r = await reclaimJsonlBranches(file, { store, agentDir, origin: { agentId: "main" } });
    expect(r.reclaimed).toBe(true);
    const blob = r.handle as string;
    const lines = await readReclaimedLines(store, blob);
    // The parts are named only inside the packed blob: the transcript does not cite them. 14 outputs: the other two
    // are on the chain of the entry the label names, and stay in the file.
    const parts = handlesOf(await store.readText(blob));
    expect(parts).toHaveLength(14);
    expect(handlesOf(await fsp.readFile(file, "utf8")).filter((h) => parts.includes(h) || h === blob)).toEqual([]);
    // Recorded with the blob, before the file changed.
    expect((await readReferenceIndex(agentDir)).map((x) => x.handles)).toEqual([[blob, ...parts].sort()]);
    const uncited = (await store.stash("cited nowhere", { kind: "tool-output" })).handle;
    expect((await gcAll(agentDir)).removed.map((x) => x.handle)).toEqual([uncited]);
    expect((await readReclaimedLines(store, blob)).equals(lines)).toBe(true);
    // The transcript gone, a ledger file that cites the blob still keeps its parts.
    await fsp.rm(file);
    const note = path.join(agentDir, "note.txt");
    await writeFile(note, `reclaimed: ${blob}\n`);
    expect((await gcAll(agentDir)).removed).toEqual([]);
    expect((await readReclaimedLines(store, blob)).equals(lines)).toBe(true);
    // Cited by nothing, the blob and its parts go together.
    await fsp.rm(note);
    const removed = (await gcAll(agentDir)).removed.map((x) => x.handle);
    expect(removed.sort()).toEqual([blob, ...parts].sort());
  });

  it("after 80 compactions: every pack of the chain survives (the sidecar names only the newest 64)", async () => {
    const root = await tempDir("ledger-gc-packs-");
    const agentDir = agentRoot(root, "main");
    const store = createArtifactStore({ root: path.join(agentDir, "artifacts") });
    const { packs, state } = await sealCheckpointChain(store, 80);
    expect(state.checkpoints.length).toBeLessThan(80);
    await saveSummary(path.join(agentDir, "sessions", "s", "summary-e1.json"), state);
    const report = await gcAll(agentDir);
    expect(report.removed).toEqual([]);
    for (const h of packs) expect(await store.has(h)).toBe(true);
  });

  it("refuses to delete when a referencing source cannot be read, and says which", async () => {
    const root = await tempDir("ledger-gc-unreadable-");
    const agentDir = agentRoot(root, "main");
    const store = createArtifactStore({ root: path.join(agentDir, "artifacts") });
    const { handle } = await store.stash("cited output", { kind: "tool-output" });
    const transcript = path.join(await tempDir("transcripts-"), "s3.jsonl");
    await writeFile(transcript, `{"handle":"${handle}"}\n`);
    const { recordTranscriptReferences } = await import("../../src/state/reference-index.js");
    await recordTranscriptReferences(agentDir, transcript, [handle]);
    // Unreadable as a file (a directory now stands there; chmod does not stop root).
    await fsp.rm(transcript);
    await fsp.mkdir(transcript);
    let caught: unknown;
    try {
      await gcAll(agentDir);
    } catch (err) {
      caught = err;
    }
    expect(isLedgerError(caught, "io_failed")).toBe(true);
    expect((caught as Error).message).toContain(transcript);
    expect(await store.has(handle)).toBe(true);
  });

  it("reads the 2026.9 SQLite transcript store (zstd rows) of the host state dir", async () => {
    const state = await tempDir("host-state-");
    const agentDir = agentRoot(path.join(state, "context-ledger"), "main");
    const store = createArtifactStore({ root: path.join(agentDir, "artifacts") });
    const a = await store.stash("cited in a compressed row", { kind: "tool-output" });
    const b = await store.stash("cited in a plain row", { kind: "tool-output" });
    const c = await store.stash("cited nowhere", { kind: "tool-output" });
    const dbFile = path.join(state, "agents", "main", "agent", "openclaw-agent.sqlite");
    await fsp.mkdir(path.dirname(dbFile), { recursive: true });
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(dbFile);
    db.exec("CREATE TABLE transcript_events (id INTEGER PRIMARY KEY, session_id TEXT, payload BLOB)");
    const insert = db.prepare("INSERT INTO transcript_events (session_id, payload) VALUES (?, ?)");
    insert.run(
      "s9",
      zstdCompressSync(
        Buffer.from(
          JSON.stringify({
            role: "toolResult",
            content: [{ type: "text", text: `[context-ledger artifact ${a.handle}]` }],
          }),
        ),
      ),
    );
    insert.run("s9", Buffer.from(`{"text":"${b.handle}"}`));
    db.close();
    const report = await gcAll(agentDir);
    expect(await store.has(a.handle)).toBe(true);
    expect(await store.has(b.handle)).toBe(true);
    expect(report.removed.map((r) => r.handle)).toEqual([c.handle]);
  });

  it("a running engine whose cached stub cites a handle gc removed stores the original again", async () => {
    const t = await createTestEngine({ offload: { maxChars: 2_000 } });
    cleanups.push(() => t.cleanup());
    const s = { sessionId: "s4", sessionKey: "agent:main:s4" };
    const messages = [
      user("build"),
      call("call_aB_1-x", "exec"),
      result("call_aB_1-x", "exec", logText(30_000, 7)),
      user("and?"),
    ];
    const first = JSON.stringify(await t.engine.assemble({ ...s, messages, tokenBudget: 50_000 }));
    const handle = parseStubHandle(handlesOf(first).map((h) => `[context-ledger artifact ${h}]`)[0]);
    expect(handle).toBeDefined();
    // An operator's gc (another process: it cannot see this prompt) removes it.
    await t.services.store("main").gc({ maxAgeMs: -1, referenced: new Set() });
    expect(await t.services.store("main").has(handle as string)).toBe(false);
    const second = JSON.stringify(await t.engine.assemble({ ...s, messages, tokenBudget: 50_000 }));
    expect(second).toContain(handle as string);
    expect(await t.services.store("main").has(handle as string)).toBe(true);
  });
});
