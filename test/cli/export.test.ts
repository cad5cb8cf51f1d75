import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { artifactPaths } from "../../src/artifacts/format/blob-path.js";
import { handleForBytes, createArtifactStore, type ArtifactStore } from "../../src/artifacts/index.js";
import type { ExportIndex } from "../../src/cli/sessions/export.js";
import { runCli } from "../../src/cli/run-cli.js";
import { buildStub } from "../../src/results/stub.js";
import { artifactRoot, sessionRoot } from "../../src/state/paths.js";
import { createSessionState } from "../../src/state/session-state.js";
import { sessionStatePath, writeSessionState } from "../../src/state/session-file.js";
import { sealCheckpointChain } from "../support/checkpoint-chain.js";
import { commandOutput, makeTempState, runWith, writeHostSqliteSession } from "./cli-fixtures.js";

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const KEY = "agent:main:main";

/** A host transcript entry whose tool result was replaced by a stub, as paydown and `session clean` leave it. */
function stubbedResult(id: string, toolName: string, handle: string, text: string) {
  return {
    type: "message",
    id,
    parentId: null,
    message: {
      role: "toolResult",
      toolCallId: `call_${id}`,
      toolName,
      content: [{ type: "text", text: buildStub({ handle, text, label: toolName }) }],
    },
  };
}

describe("export: a session's offloaded outputs leave as plain files", () => {
  let t: Awaited<ReturnType<typeof makeTempState>>;
  let ledger: string;
  let store: ArtifactStore;
  const outputs = {
    build: commandOutput("build", 40_000) + "error: linker failed\n",
    fetch: Buffer.from([0, 255, 10, 0xc3, 0x28, 1, 2, 3]),
    other: "another session's output\n",
  };
  const cli = (...argv: string[]) => runWith(runCli, ["export", ...argv], t.env);

  /** The JSONL layout of 2026.4.x: two stubbed outputs in the transcript, two packs in the ledger's state. */
  async function jsonlSession(): Promise<{ build: string; fetch: string; packs: string[]; transcript: string }> {
    // No session key in the origin: the transcript and the ledger state are what tie them to the session.
    const build = (await store.stash(outputs.build, { origin: { toolName: "exec" } })).handle;
    const fetch = (await store.stash(outputs.fetch, { origin: { toolName: "web/fetch" } })).handle;
    await store.stash(outputs.other, { origin: { sessionKey: "agent:main:other", toolName: "exec" } });
    const sessions = path.join(t.state, "agents", "main", "sessions");
    await fsp.mkdir(sessions, { recursive: true });
    const transcript = path.join(sessions, "s1.jsonl");
    const lines = [
      { type: "session", version: 3, id: "s1" },
      stubbedResult("e1", "exec", build, outputs.build),
      stubbedResult("e2", "web/fetch", fetch, "binary"),
    ];
    await fsp.writeFile(transcript, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    await fsp.writeFile(path.join(sessions, "sessions.json"), JSON.stringify({ [KEY]: { sessionId: "s1" } }));
    const { packs } = await sealCheckpointChain(store, 2);
    const state = { ...createSessionState("main", KEY), sessionId: "s1" };
    state.checkpoints = [{ handle: packs[1] as string, at: new Date().toISOString(), coveredCount: 4 }];
    await writeSessionState(sessionStatePath(sessionRoot(ledger, "main", KEY)), state);
    return { build, fetch, packs, transcript };
  }

  beforeEach(async () => {
    t = await makeTempState("export");
    ledger = path.join(t.state, "context-ledger");
    store = createArtifactStore({ root: artifactRoot(ledger, "main") });
  });
  afterEach(async () => fsp.rm(t.dir, { recursive: true, force: true }));

  it("writes two stubbed outputs and the checkpoint chain byte-exact, 0600 in a 0700 folder, with both indexes", async () => {
    const s = await jsonlSession();
    const out = path.join(t.dir, "export");
    const r = await cli("--session", KEY, "--out", out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^warning: .*not redacted: they may contain secrets/);
    expect(r.stdout).toMatch(/^Exported 4 outputs .* of agent main, session agent:main:main, to /);
    expect((await fsp.stat(out)).mode & 0o777).toBe(0o700);

    const index = JSON.parse(await fsp.readFile(path.join(out, "index.json"), "utf8")) as ExportIndex;
    const wanted = [s.build, s.fetch, ...s.packs].sort();
    expect(index.files.map((f) => f.handle)).toEqual(wanted);
    expect(index.failed).toEqual([]);
    for (const f of index.files) {
      const bytes = await fsp.readFile(path.join(out, f.file));
      expect(`ledger:v1:sha256:${sha(bytes)}`).toBe(f.handle);
      expect(f.bytes).toBe(bytes.length);
      expect((await fsp.stat(path.join(out, f.file))).mode & 0o777).toBe(0o600);
      expect(f.file).toBe(`${f.handle.slice(17, 33)}-${f.toolName?.replace("/", "_") ?? "checkpoint"}.txt`);
    }
    expect(await fsp.readFile(path.join(out, index.files.find((f) => f.handle === s.fetch)?.file ?? ""))).toEqual(
      outputs.fetch,
    );
    const byHandle = new Map(index.files.map((f) => [f.handle, f.referencedBy]));
    expect(byHandle.get(s.build)).toEqual([`host transcript ${s.transcript}`]);
    expect(byHandle.get(s.packs[1] as string)?.[0]).toMatch(/^ledger state agents\/main\/sessions\/.*state\.json$/);
    expect(byHandle.get(s.packs[0] as string)).toEqual([`cited by ${s.packs[1]}`]);
    for (const name of ["index.json", "INDEX.md"])
      expect((await fsp.stat(path.join(out, name))).mode & 0o777).toBe(0o600);
    const md = await fsp.readFile(path.join(out, "INDEX.md"), "utf8");
    for (const f of index.files) expect(md).toContain(`| \`${f.handle}\` | ${f.file} |`);
    expect(md).not.toContain(handleForBytes(outputs.other));
  });

  it("--json prints the index with ok and the folder", async () => {
    const s = await jsonlSession();
    const r = await cli("--session", KEY, "--out", path.join(t.dir, "export"), "--json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as ExportIndex & { ok: boolean; dir: string };
    expect(Object.keys(doc).sort()).toEqual(
      ["agentId", "at", "dir", "failed", "files", "ok", "schema", "session", "unreadable"].sort(),
    );
    expect(doc).toMatchObject({ ok: true, schema: "context-ledger.export.v1", agentId: "main", session: KEY });
    expect(doc.dir).toBe(await fsp.realpath(path.join(t.dir, "export")));
    const build = doc.files.find((f) => f.handle === s.build);
    expect(build).toEqual({
      handle: s.build,
      file: `${s.build.slice(17, 33)}-exec.txt`,
      bytes: Buffer.byteLength(outputs.build),
      toolName: "exec",
      kind: "artifact",
      sessionKey: null,
      createdAt: expect.any(String) as string,
      referencedBy: [`host transcript ${path.join(t.state, "agents", "main", "sessions", "s1.jsonl")}`],
    });
    expect(r.stderr).toMatch(/may contain secrets/);
  });

  it("refuses a non-empty --out unless --force, and never writes through a symlink in it", async () => {
    await jsonlSession();
    const out = path.join(t.dir, "busy");
    await fsp.mkdir(out);
    await fsp.writeFile(path.join(out, "keep.txt"), "mine");
    const refused = await cli("--session", KEY, "--out", out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Expected --out to be a new or empty folder, got ${out} with files in it`);
    expect(refused.stderr).toContain("--force");
    expect(await fsp.readdir(out)).toEqual(["keep.txt"]);

    const target = path.join(t.dir, "elsewhere.txt");
    await fsp.writeFile(target, "untouched");
    await fsp.symlink(target, path.join(out, "INDEX.md"));
    const forced = await cli("--session", KEY, "--out", out, "--force");
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain(`Refusing to write through a symlink or over a non-file in --out: ${out}/INDEX.md`);
    expect(await fsp.readFile(target, "utf8")).toBe("untouched");
    expect((await fsp.readdir(out)).sort()).toEqual(["INDEX.md", "keep.txt"]);

    await fsp.rm(path.join(out, "INDEX.md"));
    const link = path.join(t.dir, "link");
    await fsp.symlink(out, link);
    const viaLink = await cli("--session", KEY, "--out", link, "--force");
    expect(viaLink.code).toBe(1);
    expect(viaLink.stderr).toContain(`Expected --out to be a folder, got a symlink at ${link}`);

    const ok = await cli("--session", KEY, "--out", out, "--force");
    expect(ok.code).toBe(0);
    expect(await fsp.readFile(path.join(out, "keep.txt"), "utf8")).toBe("mine");
  });

  it("reports a missing and a corrupt output by handle, exits 3, and still writes every other one", async () => {
    const s = await jsonlSession();
    const gone = handleForBytes("an output gc removed\n");
    await fsp.appendFile(s.transcript, `${JSON.stringify(stubbedResult("e3", "exec", gone, "x"))}\n`);
    const blob = artifactPaths(store.root, s.build.slice(-64)).blob;
    const bytes = await fsp.readFile(blob);
    await fsp.writeFile(blob, Buffer.concat([bytes.subarray(0, 12), Buffer.from("garbage"), bytes.subarray(19)]));
    const out = path.join(t.dir, "export");

    const r = await cli("--session", KEY, "--out", out);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("2 outputs could not be exported (the others were):");
    expect(r.stderr).toContain(`  missing ${gone}: `);
    expect(r.stderr).toContain(`  corrupt ${s.build}: `);
    const index = JSON.parse(await fsp.readFile(path.join(out, "index.json"), "utf8")) as ExportIndex;
    expect(index.failed.map((f) => [f.handle, f.problem]).sort()).toEqual(
      [
        [gone, "missing"],
        [s.build, "corrupt"],
      ].sort(),
    );
    expect(index.files.map((f) => f.handle).sort()).toEqual([s.fetch, ...s.packs].sort());
    expect((await fsp.readdir(out)).filter((f) => f.includes(s.build.slice(17, 33)))).toEqual([]);
    const md = await fsp.readFile(path.join(out, "INDEX.md"), "utf8");
    expect(md).toContain("## Not exported");
    expect(md).toContain(`| \`${gone}\` | missing |`);

    const json = await cli("--session", KEY, "--out", path.join(t.dir, "export-json"), "--json");
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, failed: [{}, {}] });
  });

  it("finds the stubs of a 2026.9.x session in the host's SQLite store, zstd rows included", async () => {
    const big = commandOutput("sqlite", 30_000);
    const small = "short output\n";
    const bigHandle = (await store.stash(big, { origin: { toolName: "exec" } })).handle;
    const smallHandle = (await store.stash(small, { origin: { toolName: "read" } })).handle;
    const otherHandle = (await store.stash("other window\n", { origin: { toolName: "exec" } })).handle;
    const db = await writeHostSqliteSession(t.state, "main", {
      sessionKey: KEY,
      sessionId: "w1",
      events: [
        { type: "session", id: "w1" },
        { ...stubbedResult("e1", "exec", bigHandle, big), padding: "p".repeat(2_000) },
        { type: "message", id: "e2", parentId: "e1", message: { role: "assistant", content: `see ${smallHandle}` } },
      ],
    });
    await writeHostSqliteSession(t.state, "main", {
      sessionKey: "agent:main:cron",
      sessionId: "w2",
      events: [stubbedResult("e1", "exec", otherHandle, "x")],
    });
    const out = path.join(t.dir, "export");
    const r = await cli("--session", KEY, "--out", out, "--json");
    expect(r.code, r.stdout).toBe(0);
    const doc = JSON.parse(r.stdout) as ExportIndex;
    expect(doc.files.map((f) => f.handle).sort()).toEqual([bigHandle, smallHandle].sort());
    for (const f of doc.files) {
      expect(f.referencedBy).toEqual([`host transcript ${db} (session id w1)`]);
      expect(sha(await fsp.readFile(path.join(out, f.file)))).toBe(f.handle.slice(-64));
    }
  });

  it("says what is wrong: no --out, nothing referenced by the session", async () => {
    expect((await cli("--session", KEY)).stderr).toMatch(/Expected --out DIR/);
    const none = await cli("--session", "agent:main:nope", "--out", path.join(t.dir, "none"));
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No offloaded output of agent main referenced by session agent:main:nope/);
    await expect(fsp.stat(path.join(t.dir, "none"))).rejects.toThrow();
  });
});
