import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../../test/support/temp-dir.js";
import { isLedgerError, LedgerError } from "../../errors.js";
import type { ObjectInfo, StoreBackend } from "../backends/backend-types.js";
import { createFileBackend } from "../backends/file-backend.js";
import { createBackendStore } from "../store-core.js";
import { blobKey, metaKey } from "../format/store-keys.js";
import { migrateArtifacts } from "./store-migrate.js";

const tmp = useTempDir("ledger-migrate-");

/** A backend that counts created objects and whole reads, to see what a run touched. */
function counting(inner: StoreBackend): StoreBackend & { created: string[]; reads: number } {
  const b = {
    kind: inner.kind,
    location: inner.location,
    created: [] as string[],
    reads: 0,
    async putOnce(...args: Parameters<StoreBackend["putOnce"]>) {
      const made = await inner.putOnce(...args);
      if (made) b.created.push(args[0]);
      return made;
    },
    async getRange(...args: Parameters<StoreBackend["getRange"]>) {
      b.reads++;
      return inner.getRange(...args);
    },
    head: (key: string) => inner.head(key),
    list: (prefix: string) => inner.list(prefix),
    delete: (key: string) => inner.delete(key),
  };
  return b;
}

async function snapshot(backend: StoreBackend): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const o of backend.list("")) out.push(o);
  return out;
}

/** A file store with `n` small artifacts and one large one (several chunks, above the in-memory copy size). */
async function seed(n: number) {
  const root = path.join(tmp(), "local");
  const store = createBackendStore(createFileBackend(root), { root, chunkBytes: 1024 * 1024 });
  const texts = new Map<string, Buffer>();
  for (let i = 0; i < n; i++) {
    const body = Buffer.from(
      Array.from({ length: 300 }, (_, j) => `${i}:${j} ${randomBytes(6).toString("hex")}`).join("\n"),
    );
    texts.set((await store.stash(body, { kind: "tool-output" })).handle, body);
  }
  // Random bytes barely compress: about 9 MiB stored, copied through a temp file.
  const large = randomBytes(9 * 1024 * 1024 + 123);
  texts.set((await store.stash(large)).handle, large);
  return { root, store, texts };
}

describe("migrateArtifacts between two backends", () => {
  it("copies every artifact, verified, readable byte-exact from the target, and leaves the source as it was", async () => {
    const { root, store, texts } = await seed(4);
    const source = createFileBackend(root);
    const before = await snapshot(source);
    const remoteRoot = path.join(tmp(), "remote");
    const target = createFileBackend(remoteRoot);
    const report = await migrateArtifacts({ source, target, root, journal: path.join(tmp(), "j", "verified") });
    expect(report).toMatchObject({ total: 5, copied: 5, present: 0, failed: [], interrupted: false });
    expect(await snapshot(source)).toEqual(before);
    const remote = createBackendStore(target, { root: path.join(tmp(), "remote-local") });
    for (const [handle, bytes] of texts) {
      expect((await remote.read(handle)).equals(bytes)).toBe(true);
      expect(await remote.readMeta(handle)).toEqual(await store.readMeta(handle));
    }
    const tail = await remote.select([...texts.keys()][0] ?? "", { kind: "tail", lines: 1 }, { maxChars: 200 });
    expect(tail.text).toMatch(/^0:299 /);
    // No temp file left beside the local store.
    expect((await snapshot(source)).filter((o) => o.key.includes(".tmp-"))).toEqual([]);
  });

  it("resumes after an interruption: a rerun copies only what is missing and rereads nothing verified", async () => {
    const { root, texts } = await seed(6);
    const source = createFileBackend(root);
    const target = counting(createFileBackend(path.join(tmp(), "remote")));
    const journal = path.join(tmp(), "j", "verified");
    const stop = new AbortController();
    const first = await migrateArtifacts({
      source,
      target,
      root,
      journal,
      signal: stop.signal,
      onArtifact: (p) => {
        if (p.done === 3) stop.abort();
      },
    });
    expect(first).toMatchObject({ total: 7, copied: 3, interrupted: true });
    expect(target.created).toHaveLength(6);
    target.created.length = 0;
    target.reads = 0;
    const second = await migrateArtifacts({ source, target, root, journal });
    expect(second).toMatchObject({ total: 7, copied: 4, present: 3, failed: [], interrupted: false });
    expect(target.created).toHaveLength(8);
    const readsOfFour = target.reads;
    target.reads = 0;
    const third = await migrateArtifacts({ source, target, root, journal });
    expect(third).toMatchObject({ copied: 0, present: 7, copiedBytes: 0 });
    expect(target.reads).toBe(0);
    expect(readsOfFour).toBeGreaterThan(0);
    const remote = createBackendStore(target, { root: path.join(tmp(), "r") });
    for (const [handle, bytes] of texts) expect((await remote.read(handle)).equals(bytes)).toBe(true);
  });

  it("finishes an artifact a kill left half copied (blob there, meta not) and verifies what it did not copy", async () => {
    const { root, store, texts } = await seed(2);
    const source = createFileBackend(root);
    const target = createFileBackend(path.join(tmp(), "remote"));
    const [handle] = [...texts.keys()];
    const hex = (await store.readMeta(handle ?? "")).sha256;
    const blob = await source.getRange(blobKey(hex), 0);
    await target.putOnce(blobKey(hex), { bytes: blob ?? Buffer.alloc(0) });
    // No journal: what is already on the target is read back and checked, not trusted.
    const report = await migrateArtifacts({ source, target, root });
    expect(report).toMatchObject({ total: 3, copied: 3, present: 0, failed: [] });
    expect(await target.head(metaKey(hex))).toBeDefined();
    const again = await migrateArtifacts({ source, target, root });
    expect(again).toMatchObject({ copied: 0, present: 3, failed: [] });
  });

  it("reports an artifact whose copy fails verification, leaves no copy of it on the target, and moves the rest", async () => {
    const { root, store, texts } = await seed(3);
    const [bad] = [...texts.keys()];
    const hex = (await store.readMeta(bad ?? "")).sha256;
    const file = path.join(root, ...blobKey(hex).split("/"));
    const bytes = await fsp.readFile(file);
    bytes[20] = (bytes[20] ?? 0) ^ 0xff;
    await fsp.chmod(file, 0o600);
    await fsp.writeFile(file, bytes);
    const source = createFileBackend(root);
    const target = createFileBackend(path.join(tmp(), "remote"));
    const report = await migrateArtifacts({ source, target, root });
    expect(report.copied).toBe(3);
    expect(report.failed.map((f) => f.handle)).toEqual([bad]);
    expect(report.failed[0]?.reason).toMatch(/artifact_corrupt/);
    expect(await target.head(blobKey(hex))).toBeUndefined();
    expect(await target.head(metaKey(hex))).toBeUndefined();
    expect((await source.getRange(blobKey(hex), 0))?.equals(bytes)).toBe(true);
  });

  it("stops at the first failure of the target itself, saying how far it got, and a rerun goes on", async () => {
    const { root, texts } = await seed(3);
    const source = createFileBackend(root);
    const inner = createFileBackend(path.join(tmp(), "remote"));
    let up = true;
    let puts = 0;
    const flaky: StoreBackend = {
      ...inner,
      async putOnce(key, body) {
        puts++;
        if (!up) throw new LedgerError("io_failed", "Expected PUT to succeed, got ECONNREFUSED");
        return inner.putOnce(key, body);
      },
      list: (prefix) => inner.list(prefix),
    };
    const stop = await migrateArtifacts({
      source,
      target: flaky,
      root,
      onArtifact: (p) => {
        if (p.done === 1) up = false;
      },
    }).catch((err: unknown) => err);
    expect(isLedgerError(stop, "io_failed")).toBe(true);
    expect((stop as Error).message).toMatch(/ECONNREFUSED.*stopped after 1 of 4 artifacts.*run it again/);
    expect(puts).toBe(3);
    up = true;
    const rerun = await migrateArtifacts({ source, target: flaky, root });
    expect(rerun).toMatchObject({ total: 4, copied: 3, present: 1, failed: [] });
    const remote = createBackendStore(inner, { root: path.join(tmp(), "r") });
    for (const [handle, bytes] of texts) expect((await remote.read(handle)).equals(bytes)).toBe(true);
  });

  it("a dry run says what it would copy and writes nothing", async () => {
    const { root } = await seed(2);
    const source = createFileBackend(root);
    const target = createFileBackend(path.join(tmp(), "remote"));
    const report = await migrateArtifacts({ source, target, root, dryRun: true });
    const stored = (await snapshot(source)).reduce((n, o) => n + o.size, 0);
    expect(report).toMatchObject({ dryRun: true, total: 3, copied: 3, copiedBytes: stored });
    expect(await snapshot(target)).toEqual([]);
  });
});
