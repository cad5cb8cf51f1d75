import { describe, expect, it } from "vitest";
import { raceCleanAgainstWriter } from "./clean-race.js";

// The scale run of the race the unit project runs at small size: with `LEDGER_SOAK=1` (npm run test:soak).
const soak = describe.skipIf(!process.env.LEDGER_SOAK);

soak("session clean racing a host writer, 100 runs", () => {
  it("loses no appended line in 100 runs (a stale lock, or --force refused by a live one)", async () => {
    const lost: number[] = [];
    const wrong: string[] = [];
    let reordered = 0;
    const unreported: number[] = [];
    let heldByWriter = 0;
    for (let run = 0; run < 100; run++) {
      const lock = run % 2 === 0 ? "stale" : "live-forced";
      const outcome = await raceCleanAgainstWriter(1_000, lock);
      // Past a stale lock the clean replaces, unless its last look finds the writer holding the file open.
      if (lock === "stale" && outcome.heldByWriter) heldByWriter++;
      const expected = lock === "stale" ? (outcome.heldByWriter ? "refused" : "cleaned") : "refused";
      if (outcome.status !== expected) wrong.push(`${run}: ${outcome.status} ${outcome.reason ?? ""}`);
      if (outcome.kept !== 1_000 || outcome.duplicated) lost.push(run);
      if (!outcome.inOrder) reordered++;
      if (!outcome.inOrder && outcome.reportedOutOfOrder === 0) unreported.push(run);
    }
    console.log(
      `[clean race] 100 runs: ${lost.length} lost a line, ${reordered} kept a raced line out of order (${reordered - unreported.length} of them reported), ${heldByWriter} refused (writer holding the file)`,
    );
    // That a line is kept in order is not asserted: this writer ignores the host's lock and appends back to back, so
    // a line whose open resolved the old file just before the rename and whose write lands just after it can only be
    // carried after the writer's next line (its fd lives microseconds, too short for any look at /proc). The clean
    // cannot prevent it, and says so when it sees the late bytes land after another append while it carries them
    // (most such runs, not all: a line carried in the copy that also carried the writer's next line looks in order
    // to it). The host's own appends take its lock. What is guaranteed, and asserted, is that no line is lost.
    expect({ lost, wrong }).toEqual({ lost: [], wrong: [] });
  });
});
