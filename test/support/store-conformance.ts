import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { StoreBackend } from "../../src/artifacts/backends/backend-types.js";
import { writeBlob } from "../../src/artifacts/format/blob-writer.js";
import { handleForBytes, selectSlice, type Selector, type ArtifactStore } from "../../src/artifacts/index.js";
import { createBackendStore, type ArtifactStoreOptions } from "../../src/artifacts/store-core.js";
import { blobKey, metaKey } from "../../src/artifacts/format/store-keys.js";
import { isLedgerError } from "../../src/errors.js";

/** A fresh, empty backend for one test, and a local folder for the store's temp files. */
export interface BackendUnderTest {
  backend: StoreBackend;
  /** Local folder (stash temp files, gc epoch). */
  root: string;
  /** Ends the backend's background work (a spool's uploads) before the test's folders are removed. */
  close?: () => Promise<void>;
}

const MiB = 1024 * 1024;
const LINES = Array.from({ length: 3_000 }, (_, i) => `${i} status=${(i * 7919) % 600} é€😀 ${"x".repeat(i % 50)}`);
const TEXT = LINES.join("\n");
const SELECTORS: Selector[] = [
  { kind: "head", lines: 3 },
  { kind: "tail", lines: 4 },
  { kind: "headtail" },
  { kind: "range", start: 1_500, end: 1_510 },
  { kind: "grep", pattern: "status=59\\d", context: 1 },
  { kind: "json", path: "$" },
];

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    if (isLedgerError(err)) return err.code;
    throw err;
  }
}

/** `lines` numbered 100-byte log lines, piece by piece. */
async function* logLines(lines: number): AsyncGenerator<Buffer> {
  for (let n = 0; n < lines; n += 10_000) {
    const count = Math.min(10_000, lines - n);
    const piece = Buffer.alloc(count * 100, ".");
    for (let k = 0; k < count; k++) {
      piece.write(`line ${n + k} `, k * 100, "latin1");
      piece[k * 100 + 99] = 10;
    }
    yield piece;
  }
}

/**
 * The contract every artifact store backend meets, run once per backend (as
 * unstorage's `testDriver`): the five backend operations, then the whole
 * store (stash, dedup, reads, selectors with ranged reads, list, remove, gc,
 * verification, forged index) over it. `make` gives each test a fresh, empty backend.
 */
export function describeStoreConformance(name: string, makeBackend: () => Promise<BackendUnderTest>): void {
  const made: BackendUnderTest[] = [];
  const make = async (): Promise<BackendUnderTest> => {
    const under = await makeBackend();
    made.push(under);
    return under;
  };
  const storeOf = (under: BackendUnderTest, options: Partial<ArtifactStoreOptions> = {}): ArtifactStore =>
    createBackendStore(under.backend, { root: under.root, ...options });

  describe(`store backend conformance: ${name}`, () => {
    // Inside the describe: runs before the file's own afterEach removes the folders.
    afterEach(async () => {
      for (const under of made.splice(0)) await under.close?.();
    });

    it("putOnce creates an object once and never replaces it, from bytes or from a file", async () => {
      const { backend, root } = await make();
      expect(await backend.putOnce("t/a", { bytes: Buffer.from("first") })).toBe(true);
      expect(await backend.putOnce("t/a", { bytes: Buffer.from("second") })).toBe(false);
      expect((await backend.getRange("t/a", 0))?.toString()).toBe("first");
      const file = path.join(root, "body");
      await fsp.mkdir(root, { recursive: true });
      await fsp.writeFile(file, "from a file");
      expect(await backend.putOnce("t/b/c", { file, size: 11 })).toBe(true);
      expect(await backend.putOnce("t/b/c", { file, size: 11 })).toBe(false);
      expect((await backend.getRange("t/b/c", 0))?.toString()).toBe("from a file");
    });

    it("getRange reads byte ranges, fewer at the end, nothing past it, undefined when missing", async () => {
      const { backend } = await make();
      await backend.putOnce("r/x", { bytes: Buffer.from("0123456789") });
      expect((await backend.getRange("r/x", 2, 3))?.toString()).toBe("234");
      expect((await backend.getRange("r/x", 7, 10))?.toString()).toBe("789");
      expect((await backend.getRange("r/x", 4))?.toString()).toBe("456789");
      expect((await backend.getRange("r/x", 10, 5))?.length).toBe(0);
      expect(await backend.getRange("r/missing", 0, 5)).toBeUndefined();
    });

    it("head, list and delete see exactly the objects there", async () => {
      const { backend } = await make();
      for (const key of ["p/b/2", "p/a/1", "p/a/3", "q/1"]) await backend.putOnce(key, { bytes: Buffer.from(key) });
      expect(await backend.head("p/a/1")).toMatchObject({ key: "p/a/1", size: 5 });
      expect((await backend.head("p/a/1"))?.modifiedMs).toBeGreaterThan(Date.now() - 600_000);
      expect(await backend.head("p/a/9")).toBeUndefined();
      const keys = async (prefix: string) => {
        const out: string[] = [];
        for await (const o of backend.list(prefix)) out.push(o.key);
        return out;
      };
      expect(await keys("p/")).toEqual(["p/a/1", "p/a/3", "p/b/2"]);
      expect(await keys("p/a/")).toEqual(["p/a/1", "p/a/3"]);
      expect(await keys("nothing/")).toEqual([]);
      expect(await backend.delete("p/a/1")).toBe(true);
      expect(await backend.delete("p/a/1")).toBe(false);
      expect(await backend.head("p/a/1")).toBeUndefined();
      expect(await keys("p/")).toEqual(["p/a/3", "p/b/2"]);
    });

    it("stores, dedups and reads back text and binary content with its meta", async () => {
      const under = await make();
      const store = storeOf(under);
      const binary = randomBytes(5_000);
      const a = await store.stash(TEXT, { kind: "tool-output", format: "log", origin: { toolName: "exec" } });
      const b = await store.stash(binary);
      expect(a.created && b.created).toBe(true);
      expect(a.handle).toBe(handleForBytes(TEXT));
      expect((await store.stash(TEXT)).created).toBe(false);
      expect((await storeOf(under).stashStream(pieces(TEXT.slice(0, 10), TEXT.slice(10)))).created).toBe(false);
      expect(await store.readText(a.handle)).toBe(TEXT);
      expect((await storeOf(under).read(b.handle)).equals(binary)).toBe(true);
      expect(await storeOf(under).readMeta(a.handle)).toEqual(a.meta);
      expect(a.meta).toMatchObject({ bytes: Buffer.byteLength(TEXT), lines: 3_000, kind: "tool-output" });
      expect(await store.has(a.handle)).toBe(true);
      const absent = handleForBytes("absent");
      expect(await store.has(absent)).toBe(false);
      expect(await store.tryRead(absent)).toBeUndefined();
      expect(await store.tryReadMeta(absent)).toBeUndefined();
      expect(await outcome(store.read(absent))).toBe("artifact_not_found");
    });

    it("answers every selector as the whole text does, through ranged reads of small chunks", async () => {
      const under = await make();
      const { handle } = await storeOf(under, { chunkBytes: 4_096 }).stash(TEXT);
      const json = JSON.stringify({ lines: LINES.slice(0, 50) });
      const jsonHandle = (await storeOf(under, { chunkBytes: 4_096 }).stash(json)).handle;
      for (const selector of SELECTORS) {
        const reader = storeOf(under);
        const target = selector.kind === "json" ? jsonHandle : handle;
        const whole = selector.kind === "json" ? json : TEXT;
        const options = { maxChars: 2_000, grepTimeoutMs: 5_000 };
        expect({ selector, slice: await reader.select(target, selector, options) }).toEqual({
          selector,
          slice: selectSlice(whole, selector, options),
        });
      }
    });

    it("a few lines of a big streamed artifact read only the index and the chunks they need", async () => {
      const under = await make();
      const { handle, meta } = await storeOf(under).stashStream(logLines(125_000));
      expect(meta.bytes).toBe(12_500_000);
      let bytesRead = 0;
      const reader = storeOf(under, { onBlobRead: (n) => (bytesRead += n) });
      const slice = await reader.select(handle, { kind: "range", start: 60_001, end: 60_010 }, { maxChars: 8_000 });
      expect(slice.text.split("\n")[0]?.startsWith("line 60000 ")).toBe(true);
      expect(slice.text.split("\n")).toHaveLength(10);
      expect(bytesRead).toBeLessThan(2 * MiB);
      expect(sha(await storeOf(under).read(handle))).toBe(meta.sha256);
    });

    it("lists, counts and removes artifacts", async () => {
      const under = await make();
      const store = storeOf(under);
      const handles = [];
      for (const t of ["one", "two", "three"]) handles.push((await store.stash(t)).handle);
      const listed = [];
      for await (const m of storeOf(under).list()) listed.push(m.handle);
      expect(listed.sort()).toEqual([...handles].sort());
      expect((await store.stats()).count).toBe(3);
      expect(await store.remove(handles[0] as string)).toBe(true);
      expect(await store.remove(handles[0] as string)).toBe(false);
      expect(await store.has(handles[0] as string)).toBe(false);
      expect((await storeOf(under).stats()).count).toBe(2);
    });

    it("gc removes old unreferenced artifacts and keeps referenced ones", async () => {
      const under = await make();
      let now = Date.UTC(2026, 0, 1);
      const store = storeOf(under, { now: () => now });
      const old = await store.stash("old");
      const cited = await store.stash("cited");
      now += 10 * 86_400_000;
      const fresh = await store.stash("fresh");
      const dry = await store.gc({ maxAgeMs: 86_400_000, referenced: new Set([cited.handle]), dryRun: true });
      expect(dry.removed.map((r) => r.handle)).toEqual([old.handle]);
      expect(await store.has(old.handle)).toBe(true);
      const report = await store.gc({ maxAgeMs: 86_400_000, referenced: new Set([cited.handle]) });
      expect(report.removed.map((r) => r.handle)).toEqual([old.handle]);
      expect(await store.has(old.handle)).toBe(false);
      expect(await store.has(cited.handle)).toBe(true);
      expect(await store.has(fresh.handle)).toBe(true);
    });

    it("verification and reads refuse a blob whose bytes were replaced, and a forged chunk index", async () => {
      const under = await make();
      const store = storeOf(under, { chunkBytes: 4_096 });
      const genuine = await store.stash(TEXT);
      const other = await store.stash("short and raw");
      const forgedText = TEXT.replaceAll("status", "FORGED");
      const dir = path.join(under.root, "forge");
      await fsp.mkdir(dir, { recursive: true });
      const forged = await writeBlob([Buffer.from(forgedText)], {
        dir,
        level: 1,
        chunkBytes: 4_096,
        knownSha256: genuine.meta.sha256,
      });
      await under.backend.delete(blobKey(genuine.meta.sha256));
      await under.backend.putOnce(blobKey(genuine.meta.sha256), { file: forged.temp, size: forged.storedBytes });
      await under.backend.delete(blobKey(other.meta.sha256));
      await under.backend.putOnce(blobKey(other.meta.sha256), { bytes: Buffer.from("short and RAW") });

      const reader = storeOf(under);
      expect(
        await outcome(reader.select(genuine.handle, { kind: "range", start: 10, end: 12 }, { maxChars: 500 })),
      ).toBe("artifact_corrupt");
      expect(await outcome(reader.readText(genuine.handle))).toBe("artifact_corrupt");
      expect(await outcome(reader.read(other.handle))).toBe("artifact_corrupt");
      const report = await reader.verifyAll();
      expect(report.corrupt.map((c) => c.handle).sort()).toEqual([genuine.handle, other.handle].sort());
      expect(await under.backend.head(metaKey(genuine.meta.sha256))).toBeDefined();
    });
  });
}

async function* pieces(...parts: string[]): AsyncGenerator<string> {
  yield* parts;
}

function sha(bytes: Buffer): string {
  return handleForBytes(bytes).slice(-64);
}
