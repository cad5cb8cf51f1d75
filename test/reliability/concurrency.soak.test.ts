import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionRoot } from "../../src/state/paths.js";
import { sessionStatePath } from "../../src/state/session-file.js";
import { createTestEngine, user } from "../support/engine-harness.js";
import { runMixedLoad } from "./mixed-load.js";
import { killHolderAndRecover } from "./stale-lock.js";

// Soak variants: run with `LEDGER_SOAK=1` (npm run test:soak); skipped in the normal run.
const soak = describe.skipIf(!process.env.LEDGER_SOAK);

soak("concurrency soak: 8 processes for 30 s", () => {
  it("loses no artifact and no turn, duplicates no turn, and finishes", async () => {
    const figures = await runMixedLoad({ workers: 8, durationMs: 30_000, sharedKeys: 600 });
    console.info(`[reliability] concurrency soak: ${JSON.stringify(figures)}`);
    expect(figures.processes).toBe(8);
    expect(figures.counts.gc).toBeGreaterThan(0);
    expect(figures.committedTurns).toBeGreaterThan(0);
  }, 300_000);

  it("a session lock abandoned by a SIGKILLed holder is recovered by commitTurn after the default stale timeout", async () => {
    const t = await createTestEngine();
    const sessionKey = "agent:main:stale";
    let status = "";
    await killHolderAndRecover({
      lockFile: () => `${sessionStatePath(sessionRoot(t.dir, "main", sessionKey))}.lock`,
      recover: async () => {
        status = (
          await t.engine.commitTurn({
            sessionId: "s",
            sessionKey,
            advancementKey: "after-kill",
            messages: [user("hello")],
          })
        ).status;
      },
    });
    expect(status).toBe("committed");
    expect(t.logs.filter((l) => l.startsWith("error"))).toEqual([]);
    expect(path.isAbsolute(t.dir)).toBe(true);
  }, 120_000);
});
