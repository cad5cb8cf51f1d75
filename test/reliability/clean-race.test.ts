import { describe, expect, it } from "vitest";
import { raceCleanAgainstWriter } from "./clean-race.js";

describe("session clean racing a host writer", () => {
  it("loses no appended line with a stale lock (1,000 lines appended during the clean)", async () => {
    for (let run = 0; run < 3; run++) {
      const outcome = await raceCleanAgainstWriter(1_000, "stale");
      // As in clean-race.soak.test.ts: past a stale lock the clean replaces the file unless its last look finds the
      // writer holding it open, and a line this lock-ignoring writer lands during the rename can be kept after its
      // next one. What is guaranteed is that no line is lost.
      expect({ status: outcome.status, kept: outcome.kept, duplicated: outcome.duplicated }).toEqual({
        status: outcome.heldByWriter ? "refused" : "cleaned",
        kept: 1_000,
        duplicated: false,
      });
    }
  });

  it("refuses with --force while the gateway's lock names a live pid, and the writer loses nothing", async () => {
    const outcome = await raceCleanAgainstWriter(1_000, "live-forced");
    expect(outcome).toMatchObject({ status: "refused", kept: 1_000, duplicated: false, inOrder: true });
  });
});
