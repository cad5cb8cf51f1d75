import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isLedgerError } from "../errors.js";
import { TEMP_PREFIX } from "../fs/atomic-write.js";
import { artifactPaths } from "./format/blob-path.js";
import { createArtifactStore } from "./store.js";

const DAY = 86_400_000;
let tmp: string;
let root: string;
let clock: number;
beforeEach(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-gc-"));
  root = path.join(tmp, "artifacts");
  clock = Date.UTC(2026, 0, 1);
});
afterEach(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

/** Three 100-byte artifacts created on day 0, 10 and 20 (incompressible). */
async function seed() {
  const store = createArtifactStore({ root, now: () => clock });
  const made = [];
  for (const day of [0, 10, 20]) {
    clock = Date.UTC(2026, 0, 1) + day * DAY;
    made.push((await store.stash(`${day}`.padEnd(100, "x"))).handle);
  }
  clock = Date.UTC(2026, 0, 1) + 30 * DAY;
  return { store, made: made as [string, string, string] };
}

describe("artifact gc", () => {
  it("removes unreferenced artifacts older than maxAgeMs, keeps referenced ones", async () => {
    const { store, made } = await seed();
    const report = await store.gc({ maxAgeMs: 15 * DAY, referenced: new Set([made[0]]) });
    expect(report.removed.map((r) => [r.handle, r.reason])).toEqual([[made[1], "expired"]]);
    expect(report.freedStoredBytes).toBe(100);
    expect(report).toMatchObject({ dryRun: false, keptCount: 2, keptStoredBytes: 200, referencedKept: 1 });
    expect(await store.has(made[1])).toBe(false);
    expect(await store.has(made[0])).toBe(true);
  });

  it("removes oldest unreferenced first until the total fits maxTotalBytes", async () => {
    const { store, made } = await seed();
    const report = await store.gc({ maxTotalBytes: 150 });
    expect(report.removed.map((r) => [r.handle, r.reason])).toEqual([
      [made[0], "over-size"],
      [made[1], "over-size"],
    ]);
    expect((await store.stats()).storedBytes).toBe(100);
  });

  it("dry run reports without removing", async () => {
    const { store, made } = await seed();
    const report = await store.gc({ maxAgeMs: 5 * DAY, dryRun: true });
    expect(report.removed.map((r) => r.handle)).toEqual(made);
    expect(report.dryRun).toBe(true);
    expect((await store.stats()).count).toBe(3);
  });

  it("sweeps temp files older than a minute only", async () => {
    const { store, made } = await seed();
    const dir = path.dirname(artifactPaths(root, made[0].slice(-64)).blob);
    const old = path.join(dir, `${TEMP_PREFIX}old`);
    const fresh = path.join(dir, `${TEMP_PREFIX}fresh`);
    await fsp.writeFile(old, "x");
    await fsp.writeFile(fresh, "x");
    const t = new Date(Date.now() - 5 * 60_000);
    await fsp.utimes(old, t, t);
    clock = Date.now();
    const report = await store.gc({});
    expect(report.staleTempFiles).toBe(1);
    expect(await fsp.readdir(dir)).toContain(`${TEMP_PREFIX}fresh`);
    expect(await fsp.readdir(dir)).not.toContain(`${TEMP_PREFIX}old`);
    expect(report.removed).toEqual([]);
  });

  it("refuses with store_full, or runs the allowed gc first", async () => {
    const { made } = await seed();
    const full = createArtifactStore({ root, maxStoreBytes: 350, now: () => clock });
    await full.stash("z".repeat(40));
    const err = await full.stash("y".repeat(100)).catch((e: unknown) => e);
    expect(isLedgerError(err, "store_full")).toBe(true);
    expect((err as Error).message).toMatch(/cap 350.*340 bytes already used/);

    const calls: number[] = [];
    const helped = createArtifactStore({
      root,
      maxStoreBytes: 350,
      now: () => clock,
      onStoreFull: (info) => {
        calls.push(info.neededBytes);
        return { maxAgeMs: 25 * DAY, referenced: new Set([made[1]]) };
      },
    });
    const ok = await helped.stash("y".repeat(100));
    expect(ok.created).toBe(true);
    expect(calls).toEqual([100]);
    expect(await helped.has(made[0])).toBe(false);
    expect(await helped.has(made[1])).toBe(true);
  });
});
