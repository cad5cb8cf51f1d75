import { execFileSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { gunzipSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import { artifactPaths, incomingDir } from "./format/blob-path.js";
import { readChunkLayout } from "./format/blob-reader.js";
import { cutPoint } from "./format/chunk-cut.js";
import { ARTIFACT_META_SCHEMA } from "./format/meta.js";
import { formatHandle, handleForBytes, sha256Hex } from "./format/handle.js";
import { parseSelector, selectSlice, type Selector } from "./selectors/selectors.js";
import { createArtifactStore } from "./store.js";
import { errorCodeOf } from "../../test/support/error-code.js";

const tmp = useTempDir("ledger-chunked-");
const root = (): string => path.join(tmp(), "artifacts");

const code = errorCodeOf;

const SELECTORS: Selector[] = [
  { kind: "headtail" },
  { kind: "head" },
  { kind: "head", lines: 3 },
  { kind: "tail" },
  { kind: "tail", lines: 4 },
  { kind: "range", start: 2, end: 5 },
  { kind: "range", start: 40, end: 90 },
  { kind: "range", start: 5000, end: 5001 },
  { kind: "grep", pattern: "e", context: 1 },
  { kind: "grep", pattern: "x{2}|\\d\\d", flags: "i" },
];

/** Text made of lines of varied length, including multi-byte and astral characters and very long lines. */
const textArb = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.constantFrom("", "é€😀", "x".repeat(300), "line with e and 42", "\r", "\n"),
    ),
    { maxLength: 60 },
  )
  .map((lines) => lines.join("\n"));

describe("chunked blobs", () => {
  it("answer every selector exactly as the whole text does, wherever the chunks are cut", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        textArb,
        fc.integer({ min: 8, max: 200 }),
        fc.integer({ min: 20, max: 400 }),
        async (text, chunkBytes, maxChars) => {
          const store = createArtifactStore({ root: path.join(root(), String(n++)), chunkBytes });
          const { handle } = await store.stash(text);
          expect(await store.readText(handle)).toBe(text);
          for (const selector of SELECTORS) {
            const options = { maxChars, grepTimeoutMs: 5_000 };
            expect({ selector, slice: await store.select(handle, selector, options) }).toEqual({
              selector,
              slice: selectSlice(text, selector, options),
            });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("answer every selector on raw bytes (invalid UTF-8 included) exactly as the decoded whole does", async () => {
    let n = 0;
    const bytesArb = fc.array(fc.oneof(fc.uint8Array({ maxLength: 20 }), fc.constant(Uint8Array.of(10))), {
      maxLength: 80,
    });
    await fc.assert(
      fc.asyncProperty(bytesArb, fc.integer({ min: 8, max: 64 }), async (parts, chunkBytes) => {
        const bytes = Buffer.concat(parts);
        const store = createArtifactStore({ root: path.join(root(), String(n++)), chunkBytes });
        const { handle } = await store.stash(bytes);
        const text = bytes.toString("utf8");
        for (const selector of SELECTORS) {
          const options = { maxChars: 64, grepTimeoutMs: 5_000 };
          expect(await store.select(handle, selector, options)).toEqual(selectSlice(text, selector, options));
        }
      }),
      { numRuns: 40 },
    );
  });

  it("cut where decoding the chunks one by one equals decoding the whole, even in invalid UTF-8", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 2, maxLength: 300 }), fc.integer({ min: 4, max: 40 }), (bytes, max) => {
        const buf = Buffer.from(bytes);
        const parts: string[] = [];
        let rest = buf;
        while (rest.length > max) {
          const cut = cutPoint(rest, max);
          expect(cut).toBeGreaterThan(0);
          expect(cut).toBeLessThanOrEqual(max);
          parts.push(rest.subarray(0, cut).toString("utf8"));
          rest = rest.subarray(cut);
        }
        parts.push(rest.toString("utf8"));
        expect(parts.join("")).toBe(buf.toString("utf8"));
      }),
      { numRuns: 500 },
    );
  });

  it("stay plain gzip: gunzip and zcat print the content", async () => {
    const store = createArtifactStore({ root: root(), chunkBytes: 1000 });
    const text = Array.from({ length: 500 }, (_, i) => `row ${i} ${"abc".repeat(i % 7)}`).join("\n");
    const { meta } = await store.stash(text);
    expect(meta.compression).toBe("gzip");
    const blob = artifactPaths(root(), meta.sha256).blob;
    expect(gunzipSync(await fsp.readFile(blob)).toString("utf8")).toBe(text);
    let zcat: string | undefined;
    try {
      zcat = execFileSync("gzip", ["-dc", blob], { encoding: "utf8" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    if (zcat !== undefined) expect(zcat).toBe(text);
  });

  it("stream a file or a Readable in one pass to the same handle as stash", async () => {
    const store = createArtifactStore({ root: root(), chunkBytes: 4096 });
    const text = Array.from({ length: 3000 }, (_, i) => `${i}: ${"é".repeat(i % 5)} out`).join("\n");
    const file = path.join(tmp(), "tee.log");
    await fsp.writeFile(file, text);
    const fromFile = await store.stashFile(file, { kind: "tool-output" });
    expect(fromFile).toMatchObject({ handle: handleForBytes(text), created: true });
    expect(fromFile.meta).toMatchObject({ bytes: Buffer.byteLength(text), lines: 3000, kind: "tool-output" });
    const pieces = Readable.from(text.match(/[\s\S]{1,777}/g) ?? []);
    const fromStream = await store.stashStream(pieces);
    expect(fromStream).toMatchObject({ handle: fromFile.handle, created: false });
    expect(await store.stash(text)).toMatchObject({ handle: fromFile.handle, created: false });
    expect(await store.readText(fromFile.handle)).toBe(text);
    expect(await fsp.readdir(incomingDir(root()))).toEqual([]);
  });

  it("refuse a FIFO or a symlink as a file to stash, without blocking", async () => {
    const store = createArtifactStore({ root: root() });
    const fifo = path.join(tmp(), "fifo");
    execFileSync("mkfifo", [fifo]);
    expect(await code(store.stashFile(fifo))).toBe("input_invalid");
    const target = path.join(tmp(), "real.txt");
    await fsp.writeFile(target, "real");
    const link = path.join(tmp(), "link.txt");
    await fsp.symlink(target, link);
    expect(await code(store.stashFile(link))).toBe("input_invalid");
    expect(await code(store.stashFile(path.join(tmp(), "missing")))).toBe("artifact_not_found");
  });

  it("index more chunks than one index member holds", async () => {
    const store = createArtifactStore({ root: root(), chunkBytes: 16 });
    const text = Array.from({ length: 4000 }, (_, i) => `l${i}`).join("\n");
    const { handle, meta } = await store.stash(text);
    expect(meta.bytes / 16).toBeGreaterThan(1024);
    expect(await store.readText(handle)).toBe(text);
    const selector = parseSelector({ kind: "range", start: 3000, end: 3002 });
    expect((await store.select(handle, selector, { maxChars: 100 })).text).toBe("l2999\nl3000\nl3001");
    expect((await store.verifyAll()).ok).toEqual([handle]);
  });

  it("refuse a corrupted chunk on read, and verify names the blob", async () => {
    const store = createArtifactStore({ root: root(), chunkBytes: 2048 });
    const text = Array.from({ length: 2000 }, (_, i) => `entry ${i} ${sha256Hex(String(i))}`).join("\n");
    const { handle, meta } = await store.stash(text);
    const file = artifactPaths(root(), meta.sha256).blob;
    const bytes = await fsp.readFile(file);
    const layout = await readChunkLayout(async (n, at) => bytes.subarray(at, at + n), bytes.length, meta.sha256);
    const k = Math.floor((layout?.entries.length ?? 0) / 2);
    expect(k).toBeGreaterThan(2);
    const at = (layout?.memberOffset[k] ?? 0) + 40; // inside chunk k's deflate data
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0x55, at);
    await fsp.writeFile(file, bytes);
    const line = (layout?.newlinesBefore[k] ?? 0) + 2; // a line that lies in chunk k
    const fresh = createArtifactStore({ root: root(), chunkBytes: 2048 });
    expect(await code(fresh.readText(handle))).toBe("artifact_corrupt");
    expect(await code(fresh.select(handle, { kind: "range", start: line, end: line + 1 }, { maxChars: 2000 }))).toBe(
      "artifact_corrupt",
    );
    expect(await code(fresh.select(handle, { kind: "grep", pattern: "entry 1999" }, { maxChars: 2000 }))).toBe(
      "artifact_corrupt",
    );
    // A slice that never touches the damaged chunk is served: every byte it shows was checked.
    expect((await fresh.select(handle, { kind: "head", lines: 2 }, { maxChars: 2000 })).text).toBe(
      text.split("\n").slice(0, 2).join("\n"),
    );
    const report = await fresh.verifyAll();
    expect(report.corrupt.map((c) => c.handle)).toEqual([handle]);
    expect(report.corrupt[0]?.reason).toMatch(/artifact_corrupt: Expected chunk \d+ of/);
  });

  it("read a blob whose index is damaged whole, checked against its handle", async () => {
    const store = createArtifactStore({ root: root() });
    const text = "a line of log output\n".repeat(400);
    const { handle, meta } = await store.stash(text);
    const file = artifactPaths(root(), meta.sha256).blob;
    const bytes = await fsp.readFile(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 20) ^ 0xff, bytes.length - 20); // the index's digest
    await fsp.writeFile(file, bytes);
    const fresh = createArtifactStore({ root: root() });
    expect(await fresh.readText(handle)).toBe(text);
    expect((await fresh.select(handle, { kind: "tail", lines: 1 }, { maxChars: 100 })).text).toBe(
      "a line of log output",
    );
  });

  it("keep reading and verifying blobs of the older single-member and raw formats", async () => {
    const text = Array.from({ length: 300 }, (_, i) => `legacy line ${i}`).join("\n");
    const binary = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));
    for (const [content, stored, compression] of [
      [Buffer.from(text), gzipSync(text, { level: 6 }), "gzip"],
      [binary, binary, "none"],
    ] as const) {
      const hex = sha256Hex(content);
      const paths = artifactPaths(root(), hex);
      await fsp.mkdir(path.dirname(paths.blob), { recursive: true });
      await fsp.mkdir(path.dirname(paths.meta), { recursive: true });
      await fsp.writeFile(paths.blob, stored);
      const meta = {
        schema: ARTIFACT_META_SCHEMA,
        handle: formatHandle(hex),
        sha256: hex,
        bytes: content.length,
        storedBytes: stored.length,
        compression,
        createdAt: new Date(0).toISOString(),
        kind: "legacy",
        format: "text",
        lines: 1,
        origin: {},
      };
      await fsp.writeFile(paths.meta, JSON.stringify(meta));
    }
    const store = createArtifactStore({ root: root() });
    const handle = handleForBytes(text);
    expect(await store.readText(handle)).toBe(text);
    expect((await store.select(handle, { kind: "range", start: 10, end: 11 }, { maxChars: 500 })).text).toBe(
      "legacy line 9\nlegacy line 10",
    );
    expect([...(await store.read(handleForBytes(binary)))]).toEqual([...binary]);
    expect((await store.verifyAll()).ok.sort()).toEqual([handle, handleForBytes(binary)].sort());
    // Damage the legacy blob: still refused.
    const p = artifactPaths(root(), sha256Hex(text)).blob;
    const bytes = await fsp.readFile(p);
    bytes.writeUInt8(bytes.readUInt8(20) ^ 0xff, 20);
    await fsp.writeFile(p, bytes);
    expect(await code(createArtifactStore({ root: root() }).select(handle, { kind: "head" }, { maxChars: 50 }))).toBe(
      "artifact_corrupt",
    );
  });

  it("survive parallel streamed, file and byte stashes of the same and different content with parallel reads", async () => {
    const store = createArtifactStore({ root: root(), chunkBytes: 8192 });
    const contents = Array.from({ length: 12 }, (_, i) =>
      Array.from({ length: 4000 }, (_, j) => `c${i % 4} line ${j}`).join("\n"),
    );
    const files = await Promise.all(
      contents.map(async (c, i) => {
        const f = path.join(tmp(), `in-${i}.txt`);
        await fsp.writeFile(f, c);
        return f;
      }),
    );
    const stashes = contents.flatMap((c, i) => [
      store.stash(c),
      store.stashFile(files[i] as string),
      store.stashStream(Readable.from([c.slice(0, 10_000), c.slice(10_000)])),
      createArtifactStore({ root: root(), chunkBytes: 4096 }).stash(c),
    ]);
    const results = await Promise.all(stashes);
    results.forEach((r, i) => expect(r.handle).toBe(handleForBytes(contents[Math.floor(i / 4)] as string)));
    expect(results.filter((r) => r.created).length).toBe(4);
    const reads = await Promise.all(
      results.map((r, i) =>
        Promise.all([
          store.readText(r.handle),
          createArtifactStore({ root: root() }).select(r.handle, { kind: "tail", lines: 1 }, { maxChars: 100 }),
        ]).then(([text, tail]) => {
          expect(text).toBe(contents[Math.floor(i / 4)]);
          expect(tail.text).toBe("c" + ((Math.floor(i / 4) % 4) as number) + " line 3999");
        }),
      ),
    );
    expect(reads.length).toBe(48);
    expect(await fsp.readdir(incomingDir(root()))).toEqual([]);
    const leftovers: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(dir, e.name));
        else if (e.name.startsWith(".tmp-")) leftovers.push(e.name);
      }
    };
    await walk(root());
    expect(leftovers).toEqual([]);
    expect((await store.verifyAll()).ok.length).toBe(4);
  });
});
