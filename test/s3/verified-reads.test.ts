import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeBlob } from "../../src/artifacts/format/blob-writer.js";
import { type OpenedStore, type Selector } from "../../src/artifacts/index.js";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { blobKey, metaKey } from "../../src/artifacts/format/store-keys.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { useSharedTempDir } from "../support/temp-dir.js";

const lines = (word: string): string =>
  Array.from({ length: 300 }, (_, i) => `${word} line ${i} ${"x".repeat(20)}`).join("\n");
const SELECTORS: Selector[] = [
  { kind: "range", start: 100, end: 105 },
  { kind: "head", lines: 3 },
  { kind: "tail", lines: 3 },
  { kind: "grep", pattern: "line 1" },
  { kind: "json", path: "$" },
];
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "served",
    (err: { code?: string }) => err.code ?? String(err),
  );

describe("every read from a bucket checked against the handle", () => {
  const rgw = useCephRgw("verified reads");
  const tmp = useSharedTempDir("ledger-s3-verified-");
  if (!rgw) return;

  const open = (name: string, prefix: string): OpenedStore =>
    rgw().gateway(path.join(tmp(), name), rgw().settings(prefix), { chunkBytes: 512 });

  it("refuses a forged blob and meta pair by every selector, keeps no damaged copy, and a re-stash repairs it", async () => {
    const prefix = `forged-${randomBytes(4).toString("hex")}`;
    const writer = open("writer", prefix);
    const genuine = lines("genuine");
    const { handle, meta } = await writer.store.stash(genuine);
    expect((await writer.spool?.drain())?.objects).toBe(0);
    await writer.spool?.close();

    // A pair forged in the bucket: a chunked blob of other text under an index claiming the handle, and a meta
    // binding that index.
    const bucket = createS3Backend(rgw().options(`${prefix}/agents/main`));
    const hex = meta.sha256;
    const goodBlob = (await bucket.getRange(blobKey(hex), 0)) ?? Buffer.alloc(0);
    const goodMeta = (await bucket.getRange(metaKey(hex), 0)) ?? Buffer.alloc(0);
    const dir = path.join(tmp(), "forge");
    await fsp.mkdir(dir, { recursive: true });
    const forged = await writeBlob([Buffer.from(lines("FORGED"))], {
      dir,
      level: 1,
      chunkBytes: 512,
      knownSha256: hex,
    });
    const forge = async () => {
      await bucket.delete(blobKey(hex));
      await bucket.delete(metaKey(hex));
      await bucket.putOnce(blobKey(hex), { file: forged.temp, size: forged.storedBytes });
      const forgedMeta = { ...meta, indexSha256: forged.indexSha256, storedBytes: forged.storedBytes };
      await bucket.putOnce(metaKey(hex), { bytes: Buffer.from(JSON.stringify(forgedMeta)) });
    };
    await forge();

    const reader = open("reader", prefix);
    for (const selector of SELECTORS)
      expect({ selector, outcome: await codeOf(reader.store.select(handle, selector, { maxChars: 4_000 })) }).toEqual({
        selector,
        outcome: "artifact_corrupt",
      });
    expect(await codeOf(reader.store.readText(handle))).toBe("artifact_corrupt");

    // The bucket is repaired by its operator: the reader serves the genuine text, not a damaged local copy.
    await bucket.delete(blobKey(hex));
    await bucket.delete(metaKey(hex));
    await bucket.putOnce(blobKey(hex), { bytes: goodBlob });
    await bucket.putOnce(metaKey(hex), { bytes: goodMeta });
    expect((await reader.store.readText(handle)) === genuine).toBe(true);
    expect(await codeOf(reader.store.select(handle, { kind: "tail", lines: 1 }, { maxChars: 4_000 }))).toBe("served");
    await reader.spool?.close();

    // Damaged again; a gateway that found the damage stashes the right bytes: it does not dedup onto the damage but
    // puts them in its place, and a gateway on an empty disk reads them.
    await forge();
    const restasher = open("restasher", prefix);
    expect(await codeOf(restasher.store.readText(handle))).toBe("artifact_corrupt");
    expect((await restasher.store.stash(genuine)).handle).toBe(handle);
    expect((await restasher.spool?.drain())?.objects).toBe(0);
    const fresh = open("fresh", prefix);
    expect((await fresh.store.readText(handle)) === genuine).toBe(true);
    await restasher.spool?.close();
    await fresh.spool?.close();
  }, 120_000);

  it("refuses a meta that describes another artifact than its key names", async () => {
    const prefix = `swapped-${randomBytes(4).toString("hex")}`;
    const writer = open("swap-writer", prefix);
    const a = await writer.store.stash(lines("alpha"));
    const b = await writer.store.stash(lines("beta"));
    expect((await writer.spool?.drain())?.objects).toBe(0);
    await writer.spool?.close();
    const bucket = createS3Backend(rgw().options(`${prefix}/agents/main`));
    const metaOfB = (await bucket.getRange(metaKey(b.meta.sha256), 0)) ?? Buffer.alloc(0);
    await bucket.delete(metaKey(a.meta.sha256));
    await bucket.putOnce(metaKey(a.meta.sha256), { bytes: metaOfB });
    const reader = open("swap-reader", prefix);
    expect(await codeOf(reader.store.readMeta(a.handle))).toBe("artifact_corrupt");
    // The content still reads, checked against its own handle.
    expect((await reader.store.readText(a.handle)) === lines("alpha")).toBe(true);
    await reader.spool?.close();
  }, 60_000);
});
