import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import { artifactPaths } from "./format/blob-path.js";
import { readChunkLayout } from "./format/blob-reader.js";
import { MAX_INDEX_MEMBER_BYTES } from "./format/chunk-index.js";
import { createArtifactStore } from "./store.js";

const tmp = useTempDir("ledger-big-reads-");
const MiB = 1024 * 1024;

/** `total` bytes of 100-byte log lines (`line <n> status=...`), made piece by piece, never whole. */
async function* logLines(total: number): AsyncGenerator<Buffer> {
  const lineBytes = 100;
  const lines = Math.ceil(total / lineBytes);
  const filler = Buffer.alloc(10_000 * lineBytes, ".");
  for (let i = lineBytes - 1; i < filler.length; i += lineBytes) filler[i] = 10;
  for (let n = 0; n < lines; n += 10_000) {
    const piece = Buffer.allocUnsafe((Math.min(lines, n + 10_000) - n) * lineBytes);
    filler.copy(piece, 0, 0, piece.length);
    for (let k = n; k < n + piece.length / lineBytes; k++)
      piece.write(`line ${k} status=${(k * 7919) % 600} took ${(k * 31) % 997}ms `, (k - n) * lineBytes, "latin1");
    yield piece;
  }
}

describe("reads of a big artifact", () => {
  it("a 10-line fetch from a 200 MiB artifact reads only the chunks it needs", async () => {
    let bytesRead = 0;
    const root = path.join(tmp(), "artifacts");
    const writer = createArtifactStore({ root });
    const { handle, meta } = await writer.stashStream(logLines(200 * MiB), { kind: "tool-output" });
    expect(meta.bytes).toBe(200 * MiB);
    expect(meta.lines).toBe((200 * MiB) / 100);

    const blob = await fsp.readFile(artifactPaths(root, meta.sha256).blob);
    const layout = await readChunkLayout(async (n, at) => blob.subarray(at, at + n), blob.length, meta.sha256);
    const biggestMember = Math.max(...(layout?.entries.map((e) => e.compressedBytes) ?? [Infinity]));
    expect(layout?.entries.length).toBeGreaterThanOrEqual(200);

    const store = createArtifactStore({ root, onBlobRead: (n) => (bytesRead += n) });
    const middle = 1_000_000;
    const slice = await store.select(handle, { kind: "range", start: middle, end: middle + 9 }, { maxChars: 8_000 });
    expect(slice.text.split("\n")).toHaveLength(10);
    expect(slice.text.startsWith(`line ${middle - 1} `)).toBe(true);
    expect(slice.notice).toBe(`lines 1,000,000-1,000,009 of 2,097,152 shown (1,000 of 209,715,200 chars)`);
    // The index, then one chunk (two when the lines straddle a cut): nowhere near the 200 MiB.
    expect(bytesRead).toBeLessThanOrEqual(MAX_INDEX_MEMBER_BYTES + 2 * biggestMember);

    for (const [selector, expected] of [
      [{ kind: "head", lines: 10 } as const, "line 0 "],
      [{ kind: "tail", lines: 10 } as const, "line 2097142 "],
      [{ kind: "headtail" } as const, "line 0 "],
    ] as const) {
      bytesRead = 0;
      const s = await store.select(handle, selector, { maxChars: 8_000 });
      expect(s.text.startsWith(expected)).toBe(true);
      expect({ selector, bytesRead: bytesRead <= MAX_INDEX_MEMBER_BYTES + 3 * biggestMember }).toEqual({
        selector,
        bytesRead: true,
      });
    }
  });
});
