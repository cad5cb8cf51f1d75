/**
 * A tool result can name any path as its spill file (`details.fullOutputPath`): the engine
 * reads only the host's own, never blocks on a FIFO, and takes a file only when it holds
 * everything the result shows, not merely the same first lines.
 */
import { execFileSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bestOriginal } from "../../src/capture/best-original.js";
import { readHostSpillFile } from "../../src/capture/spill-file.js";
import { useTempDir } from "../support/temp-dir.js";

const tmp = useTempDir("ledger-spill-");
const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join("\n");
const shown = (tail: string, file: string) => `${tail}\n\n[Showing last 20 lines. Full output: ${file}]`;

describe("spill-file trust", () => {
  it("refuses a FIFO named like a spill file without blocking on it", async () => {
    const fifo = path.join(tmp(), "openclaw-bash-0123456789abcdef.log");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    // An open that blocked on the FIFO would never return: the test's timeout, not a measured time, fails it.
    expect(await readHostSpillFile(fifo, { spillDirs: [tmp()] })).toEqual({ refused: "not-regular-file" });
  });

  it("takes a spill file that holds what the result shows, and refuses one that only starts the same", async () => {
    const real = `${lines("build", 5_000)}\nDONE real`;
    const file = path.join(tmp(), "openclaw-bash-00112233aabbccdd.log");
    await fsp.writeFile(file, real, { mode: 0o600 });
    const tail = real.split("\n").slice(-20).join("\n");
    const ok = await bestOriginal(
      { content: [{ type: "text", text: shown(tail, file) }], details: { fullOutputPath: file } },
      "result-text",
      { spillDirs: [tmp()] },
    );
    expect(ok?.source).toBe("spill-file");
    expect(ok?.text).toBe(real);
    // Same head, other tail: another run's output under a path the result names.
    const other = path.join(tmp(), "openclaw-bash-ffeeddccbbaa9988.log");
    await fsp.writeFile(other, `${lines("build", 5_000)}\nDONE other`, { mode: 0o600 });
    const wrong = await bestOriginal(
      { content: [{ type: "text", text: shown(tail, other) }], details: { fullOutputPath: other } },
      "result-text",
      { spillDirs: [tmp()] },
    );
    expect(wrong?.source).toBe("result-text");
  });

  it("an empty result text accepts no spill file", async () => {
    const file = path.join(tmp(), "openclaw-bash-0000111122223333.log");
    await fsp.writeFile(file, "anything at all", { mode: 0o600 });
    const got = await bestOriginal(
      { content: [{ type: "text", text: "" }], details: { fullOutputPath: file } },
      "result-text",
      {
        spillDirs: [tmp()],
      },
    );
    expect(got).toBeUndefined();
  });
});
