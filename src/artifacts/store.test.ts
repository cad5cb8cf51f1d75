import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TEMP_PREFIX } from "../fs/atomic-write.js";
import { artifactPaths } from "./format/blob-path.js";
import { handleForBytes, HANDLE_PREFIX } from "./format/handle.js";
import { createArtifactStore } from "./store.js";
import { errorCodeOf } from "../../test/support/error-code.js";

let tmp: string;
let root: string;
beforeEach(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-store-"));
  root = path.join(tmp, "agents", "main", "artifacts");
});
afterEach(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

const code = errorCodeOf;

const LOG = Array.from(
  { length: 400 },
  (_, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z INFO line ${i}`,
).join("\n");

describe("artifact store", () => {
  it("round-trips text and binary content and writes meta without the content", async () => {
    const store = createArtifactStore({ root, now: () => Date.UTC(2026, 0, 2) });
    const { handle, meta, created } = await store.stash(LOG, {
      kind: "tool-output",
      format: "log",
      origin: { toolName: "exec", toolCallId: "c1", agentId: "main", sessionKey: "s" },
    });
    expect(created).toBe(true);
    expect(handle).toBe(handleForBytes(LOG));
    expect(await store.readText(handle)).toBe(LOG);
    expect(meta).toMatchObject({
      schema: "context-ledger.artifact.meta.v1",
      bytes: Buffer.byteLength(LOG),
      lines: 400,
      compression: "gzip",
      kind: "tool-output",
      format: "log",
      createdAt: "2026-01-02T00:00:00.000Z",
    });
    expect(meta.origin).toEqual({ toolName: "exec", toolCallId: "c1", agentId: "main", sessionKey: "s" });
    const metaText = await fsp.readFile(artifactPaths(root, meta.sha256).meta, "utf8");
    expect(metaText).not.toContain("INFO line");
    expect(await store.readMeta(handle)).toEqual(meta);

    const bin = new Uint8Array([0, 255, 10, 13, 0x1f, 0x8b]);
    const b = await store.stash(bin);
    expect([...(await store.read(b.handle))]).toEqual([...bin]);
    expect(b.meta.compression).toBe("none");
  });

  it("gzips only when it saves space, deterministically", async () => {
    const store = createArtifactStore({ root });
    const { meta } = await store.stash(LOG);
    const blob = await fsp.readFile(artifactPaths(root, meta.sha256).blob);
    expect(blob.length).toBe(meta.storedBytes);
    expect(meta.storedBytes).toBeLessThan(meta.bytes);
    expect(gunzipSync(blob).toString()).toBe(LOG);
    expect(blob.readUInt32LE(4)).toBe(0); // mtime field
    const other = createArtifactStore({ root: path.join(tmp, "other") });
    const again = await other.stash(LOG);
    expect(await fsp.readFile(artifactPaths(other.root, again.meta.sha256).blob)).toEqual(blob);
    const random = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7919 + 13) % 251));
    const r = await store.stash(new Uint8Array(random.buffer, random.byteOffset, random.length));
    expect(r.meta.compression).toBe(r.meta.storedBytes < 1000 ? "gzip" : "none");
  });

  it("deduplicates without rewriting the existing blob", async () => {
    const store = createArtifactStore({ root });
    const first = await store.stash(LOG, { origin: { toolName: "a" } });
    const blob = artifactPaths(root, first.meta.sha256).blob;
    const before = await fsp.stat(blob);
    const second = await store.stash(LOG, { origin: { toolName: "b" } });
    expect(second.created).toBe(false);
    expect(second.meta.origin.toolName).toBe("a");
    expect((await fsp.stat(blob)).ino).toBe(before.ino);
    expect((await store.stats()).count).toBe(1);
  });

  it("refuses a corrupted blob with artifact_corrupt and serves nothing", async () => {
    const store = createArtifactStore({ root });
    const { handle, meta } = await store.stash("hello world");
    await fsp.writeFile(artifactPaths(root, meta.sha256).blob, "hello w0rld");
    expect(await code(store.read(handle))).toBe("artifact_corrupt");
    expect(await code(store.tryRead(handle))).toBe("artifact_corrupt");
    const big = await store.stash(LOG);
    const p = artifactPaths(root, big.meta.sha256).blob;
    const bytes = await fsp.readFile(p);
    const at = Math.floor(bytes.length / 3); // inside the gzip member of the content
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
    await fsp.writeFile(p, bytes);
    expect(await code(store.read(big.handle))).toBe("artifact_corrupt");
    const report = await store.verifyAll();
    expect(report.corrupt.map((c) => c.handle).sort()).toEqual([handle, big.handle].sort());
    expect(report.ok).toEqual([]);
  });

  it("reports not found and invalid handles", async () => {
    const store = createArtifactStore({ root });
    const missing = HANDLE_PREFIX + "0".repeat(64);
    expect(await code(store.read(missing))).toBe("artifact_not_found");
    expect(await store.tryRead(missing)).toBeUndefined();
    expect(await store.has(missing)).toBe(false);
    expect(await code(store.read("../../etc/passwd"))).toBe("handle_invalid");
    expect(await code(store.remove(`${HANDLE_PREFIX}../${"0".repeat(61)}`))).toBe("handle_invalid");
  });

  it("refuses symlinks out of the store with path_outside_store", async () => {
    const store = createArtifactStore({ root });
    const { handle, meta } = await store.stash("inside");
    const outside = path.join(tmp, "outside");
    await fsp.mkdir(outside);
    await fsp.writeFile(path.join(outside, "secret"), "inside");
    const paths = artifactPaths(root, meta.sha256);
    await fsp.rm(paths.blob);
    await fsp.symlink(path.join(outside, "secret"), paths.blob);
    expect(await code(store.read(handle))).toBe("path_outside_store");

    // A fan-out directory that is a symlink out of the store.
    const text = "another artifact";
    const hex = handleForBytes(text).slice(-64);
    const fan = path.dirname(path.dirname(artifactPaths(root, hex).blob));
    await fsp.mkdir(path.dirname(fan), { recursive: true });
    await fsp.rm(fan, { recursive: true, force: true });
    await fsp.symlink(outside, fan);
    expect(await code(store.stash(text))).toBe("path_outside_store");
    expect(await code(store.read(handleForBytes(text)))).toBe("path_outside_store");
    expect(await fsp.readdir(outside)).toEqual(["secret"]);
  });

  it("creates files 0600 and directories 0700 even under umask 000", async () => {
    const old = process.umask(0);
    try {
      const store = createArtifactStore({ root });
      const { meta } = await store.stash(LOG);
      const paths = artifactPaths(root, meta.sha256);
      expect((await fsp.stat(paths.blob)).mode & 0o777).toBe(0o600);
      expect((await fsp.stat(paths.meta)).mode & 0o777).toBe(0o600);
      for (let dir = path.dirname(paths.blob); dir.startsWith(root); dir = path.dirname(dir)) {
        expect({ dir, mode: (await fsp.stat(dir)).mode & 0o777 }).toEqual({ dir, mode: 0o700 });
      }
      expect((await fsp.stat(path.dirname(paths.meta))).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(old);
    }
  });

  it("survives 50 parallel stashes of same and different content with parallel reads", async () => {
    const store = createArtifactStore({ root });
    const contents = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? LOG : `${LOG}\nvariant ${i}`));
    const results = await Promise.all(contents.map((c) => store.stash(c)));
    const reads = await Promise.all([...results, ...results].map((r) => store.readText(r.handle)));
    reads.forEach((text, i) => expect(text).toBe(contents[i % 50]));
    expect(results.filter((r) => r.created && r.handle === handleForBytes(LOG)).length).toBe(1);
    expect((await store.stats()).count).toBe(26);
    const second = createArtifactStore({ root });
    await Promise.all(contents.map((c) => second.stash(c)));
    const files: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(dir, e.name));
        else files.push(e.name);
      }
    };
    await walk(root);
    expect(files.filter((f) => f.startsWith(TEMP_PREFIX))).toEqual([]);
    expect(files.length).toBe(52);
    expect((await store.verifyAll()).ok.length).toBe(26);
  });

  it("lists, removes and counts", async () => {
    const store = createArtifactStore({ root });
    const a = await store.stash("a");
    const b = await store.stash("b");
    const listed: string[] = [];
    for await (const m of store.list()) listed.push(m.handle);
    expect(listed.sort()).toEqual([a.handle, b.handle].sort());
    expect(await store.remove(a.handle)).toBe(true);
    expect(await store.remove(a.handle)).toBe(false);
    expect(await store.stats()).toEqual({ count: 1, bytes: 1, storedBytes: 1 });
  });
});
