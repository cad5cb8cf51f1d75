import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import { isLedgerError } from "../errors.js";
import { artifactPaths } from "./format/blob-path.js";
import { writeBlob } from "./format/blob-writer.js";
import type { Selector } from "./selectors/selectors.js";
import { createArtifactStore } from "./store.js";

const tmp = useTempDir("ledger-forged-");

const lines = (word: string): string =>
  Array.from({ length: 300 }, (_, i) => `${word} line ${i} ${"x".repeat(20)}`).join("\n");
const GENUINE = lines("genuine");
const FORGED = lines("FORGED");
const RANGE_SELECTORS: Selector[] = [
  { kind: "range", start: 100, end: 105 },
  { kind: "head", lines: 3 },
  { kind: "tail", lines: 3 },
  { kind: "headtail" },
];

async function failureCode(p: Promise<unknown>): Promise<string> {
  try {
    const value = await p;
    return `served ${JSON.stringify(value).slice(0, 120)}`;
  } catch (err) {
    if (isLedgerError(err)) return err.code;
    throw err;
  }
}

/** Replaces the blob of `handle` with `content` chunked under an index that claims `handle`'s digest. */
async function forgeBlob(root: string, sha256: string, content: string): Promise<void> {
  const dir = path.join(tmp(), "forge");
  await fsp.mkdir(dir, { recursive: true });
  const written = await writeBlob([Buffer.from(content)], { dir, level: 1, chunkBytes: 512, knownSha256: sha256 });
  const blob = artifactPaths(root, sha256).blob;
  await fsp.rm(blob);
  await fsp.copyFile(written.temp, blob);
}

describe("range reads against a forged chunk index", () => {
  it("a blob rewritten with an index claiming another handle is refused by every range read", async () => {
    const root = path.join(tmp(), "artifacts");
    const store = createArtifactStore({ root, chunkBytes: 512 });
    const { handle, meta } = await store.stash(GENUINE);
    await forgeBlob(root, meta.sha256, FORGED);

    // A fresh store object: nothing of the genuine text is cached in memory.
    const reader = createArtifactStore({ root, chunkBytes: 512 });
    for (const selector of RANGE_SELECTORS)
      expect({ selector, outcome: await failureCode(reader.select(handle, selector, { maxChars: 4_000 })) }).toEqual({
        selector,
        outcome: "artifact_corrupt",
      });
    expect(await failureCode(reader.readText(handle))).toBe("artifact_corrupt");
    expect((await reader.verifyAll()).corrupt.map((c) => c.handle)).toEqual([handle]);
  });

  it("a blob whose meta predates index binding is read whole and checked, forged or not", async () => {
    const root = path.join(tmp(), "artifacts");
    const store = createArtifactStore({ root, chunkBytes: 512 });
    const { handle, meta } = await store.stash(GENUINE);
    const metaFile = artifactPaths(root, meta.sha256).meta;
    const { indexSha256: _dropped, ...older } = meta;
    await fsp.writeFile(metaFile, `${JSON.stringify(older, null, 2)}\n`);

    const honest = createArtifactStore({ root, chunkBytes: 512 });
    const slice = await honest.select(handle, { kind: "range", start: 100, end: 101 }, { maxChars: 4_000 });
    expect(slice.text).toBe("genuine line 99 xxxxxxxxxxxxxxxxxxxx\ngenuine line 100 xxxxxxxxxxxxxxxxxxxx");

    await forgeBlob(root, meta.sha256, FORGED);
    const reader = createArtifactStore({ root, chunkBytes: 512 });
    expect(await failureCode(reader.select(handle, { kind: "tail", lines: 2 }, { maxChars: 4_000 }))).toBe(
      "artifact_corrupt",
    );
  });

  it("a second stash of content whose blob was forged does not bind the forged index", async () => {
    const root = path.join(tmp(), "artifacts");
    const store = createArtifactStore({ root, chunkBytes: 512 });
    const { handle, meta } = await store.stash(GENUINE);
    await forgeBlob(root, meta.sha256, FORGED);
    await fsp.rm(artifactPaths(root, meta.sha256).meta);

    const again = createArtifactStore({ root, chunkBytes: 512 });
    const second = await again.stash(GENUINE);
    expect(second.created).toBe(false);
    expect(second.meta.indexSha256).toBeUndefined();
    expect(await failureCode(again.select(handle, { kind: "head", lines: 2 }, { maxChars: 4_000 }))).toBe(
      "artifact_corrupt",
    );
  });
});
