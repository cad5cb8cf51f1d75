import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isLedgerError } from "../errors.js";
import { extendSummary } from "./extend-summary.js";
import { loadSummary, saveSummary, tryLoadSummary } from "./sidecar.js";
import { createSummaryState } from "./summary-state.js";

let dir: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-summary-"));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return isLedgerError(err) ? err.code : "other";
  }
  return undefined;
}

describe("summary sidecar", () => {
  it("saves atomically with mode 0600 and loads the same record", async () => {
    const messages = [{ role: "user", content: "Rename src/a.ts to src/b.ts." }];
    const state = extendSummary(createSummaryState("epoch-7"), messages, 1);
    const file = path.join(dir, "session", "summary-epoch-7.json");
    await saveSummary(file, state);
    expect(await loadSummary(file)).toEqual(state);
    expect((await fsp.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fsp.readdir(path.dirname(file))).filter((f) => f.startsWith(".tmp-"))).toEqual([]);
  });

  it("reports a corrupt file as state_corrupt, a missing one as io_failed; tryLoad gives undefined", async () => {
    const file = path.join(dir, "summary-x.json");
    expect(await codeOf(loadSummary(file))).toBe("io_failed");
    expect(await tryLoadSummary(file)).toBeUndefined();
    for (const content of [
      "{ truncated",
      "[]",
      JSON.stringify({ ...createSummaryState("x"), schema: "other" }),
      JSON.stringify({ ...createSummaryState("x"), entries: [{}] }),
    ]) {
      await fsp.writeFile(file, content);
      expect(await codeOf(loadSummary(file))).toBe("state_corrupt");
      expect(await tryLoadSummary(file)).toBeUndefined();
    }
  });
});
