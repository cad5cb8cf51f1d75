import { describe, expect, it } from "vitest";
import { withFileLock } from "../../src/fs/lock.js";
import { runMixedLoad } from "./mixed-load.js";
import { killHolderAndRecover } from "./stale-lock.js";

// The soak variant (≥ 30 s, default stale timeout) is concurrency.soak.test.ts.
describe("concurrency: 8 processes on one state dir", () => {
  it("interleaved stash, fetch, gc, commitTurn and state updates lose nothing and duplicate no turn", async () => {
    const figures = await runMixedLoad({ workers: 8, durationMs: 5_000, sharedKeys: 120 });
    console.info(`[reliability] concurrency: ${JSON.stringify(figures)}`);
    expect(figures.processes).toBe(8);
    expect(figures.counts.stash).toBeGreaterThan(0);
    expect(figures.counts.gc).toBeGreaterThan(0);
    expect(figures.counts.commit).toBeGreaterThan(0);
    expect(figures.counts.fetchOther).toBeGreaterThan(0);
    expect(figures.counts.assemble).toBeGreaterThan(0);
    expect(figures.handlesVerified).toBeGreaterThan(0);
  }, 120_000);

  it("a lock whose holder was SIGKILLed is taken over after its stale timeout", async () => {
    let ran = false;
    await killHolderAndRecover({
      staleMs: 2_000,
      recover: (file) =>
        withFileLock(
          file,
          async () => {
            ran = true;
          },
          { staleMs: 2_000, timeoutMs: 20_000 },
        ),
    });
    expect(ran).toBe(true);
  }, 60_000);
});
