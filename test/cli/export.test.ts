import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactPaths } from "../../src/artifacts/blob-path.js";
import { createArtifactStore } from "../../src/artifacts/store.js";
import { runCli } from "../../src/cli/run-cli.js";
import { artifactRoot } from "../../src/state/paths.js";
import { makeTempState, runWith } from "./cli-fixtures.js";

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

describe("export: the way out keeps every offloaded output", () => {
  let t: Awaited<ReturnType<typeof makeTempState>>;
  let ledger: string;
  const outputs = {
    build: "build log\n".repeat(5_000) + "error: linker failed\n",
    binary: Buffer.from([0, 255, 10, 0xc3, 0x28, 1, 2, 3]),
    other: "another session's output\n",
  };
  const handles = { build: "", binary: "", other: "" };
  const cli = (...argv: string[]) => runWith(runCli, ["export", ...argv, "--state-dir", ledger], t.env);

  beforeAll(async () => {
    t = await makeTempState("export");
    ledger = path.join(t.dir, "ledger");
    const store = createArtifactStore({ root: artifactRoot(ledger, "main") });
    const s1 = { sessionKey: "agent:main:one", agentId: "main" };
    handles.build = (await store.stash(outputs.build, { origin: { ...s1, toolName: "exec" } })).handle;
    handles.binary = (await store.stash(outputs.binary, { origin: { ...s1, toolName: "web/fetch" } })).handle;
    handles.other = (
      await store.stash(outputs.other, { origin: { sessionKey: "agent:main:two", toolName: "exec" } })
    ).handle;
  });
  afterAll(async () => fsp.rm(t.dir, { recursive: true, force: true }));

  it("writes one session's outputs byte-exact, 0600 in a 0700 folder, with index.json and INDEX.md", async () => {
    const out = path.join(t.dir, "out-one");
    const r = await cli("--session", "agent:main:one", "--out", out, "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not redacted: they may hold secrets/);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: true, schema: "context-ledger.export.v1", agentId: "main", failed: [] });
    expect(doc.files.map((f: { handle: string }) => f.handle).sort()).toEqual([handles.build, handles.binary].sort());
    for (const f of doc.files as { handle: string; file: string }[]) {
      const bytes = await fsp.readFile(path.join(out, f.file));
      expect(`ledger:v1:sha256:${sha(bytes)}`).toBe(f.handle);
      expect((await fsp.stat(path.join(out, f.file))).mode & 0o777).toBe(0o600);
      expect(f.file).toMatch(/^[0-9a-f]{16}-[A-Za-z0-9._-]+\.txt$/);
    }
    expect((await fsp.stat(out)).mode & 0o777).toBe(0o700);
    const index = await fsp.readFile(path.join(out, "INDEX.md"), "utf8");
    expect(index).toContain(handles.build);
    expect(index).not.toContain(handles.other);
    expect(JSON.parse(await fsp.readFile(path.join(out, "index.json"), "utf8")).files).toEqual(doc.files);
  });

  it("refuses a non-empty folder unless --force, and a symlink in it is never written through", async () => {
    const out = path.join(t.dir, "out-busy");
    await fsp.mkdir(out);
    await fsp.writeFile(path.join(out, "keep.txt"), "mine");
    const refused = await cli("--out", out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Expected --out to be a new or empty directory/);
    const target = path.join(t.dir, "elsewhere.txt");
    await fsp.writeFile(target, "untouched");
    await fsp.symlink(target, path.join(out, "INDEX.md"));
    const forced = await cli("--out", out, "--force");
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain(`Refusing to write through a symlink: ${path.join(out, "INDEX.md")}`);
    expect(await fsp.readFile(target, "utf8")).toBe("untouched");
    expect(await fsp.readFile(path.join(out, "keep.txt"), "utf8")).toBe("mine");
  });

  it("a corrupt output is reported by handle, and every other one is still written", async () => {
    const meta = await createArtifactStore({ root: artifactRoot(ledger, "main") }).readMeta(handles.other);
    const blob = artifactPaths(artifactRoot(ledger, "main"), meta.sha256).blob;
    const bytes = await fsp.readFile(blob);
    await fsp.writeFile(blob, Buffer.concat([bytes.subarray(0, 12), Buffer.from("garbage"), bytes.subarray(19)]));
    const out = path.join(t.dir, "out-all");
    const r = await cli("--out", out, "--json");
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.failed.map((f: { handle: string }) => f.handle)).toEqual([handles.other]);
    expect(doc.files).toHaveLength(2);
    await fsp.writeFile(blob, bytes);
  });

  it("says what is wrong: no --out, nothing stored for the session", async () => {
    expect((await cli()).stderr).toMatch(/Expected --out DIR/);
    const none = await cli("--session", "agent:main:nope", "--out", path.join(t.dir, "none"));
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No stored output of agent main in session agent:main:nope/);
  });
});
