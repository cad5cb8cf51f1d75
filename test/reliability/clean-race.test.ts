import { describe, expect, it } from "vitest";
import { raceCleanAgainstWriter } from "./clean-race.js";

describe("session clean racing a host writer", () => {
  it("loses no appended line with a stale lock (1,000 lines appended during the clean)", async () => {
    for (let run = 0; run < 3; run++) {
      const outcome = await raceCleanAgainstWriter(1_000, "stale");
      expect(outcome).toMatchObject({ status: "cleaned", kept: 1_000, duplicated: false, inOrder: true });
    }
  });

  it("refuses with --force while the gateway's lock names a live pid, and the writer loses nothing", async () => {
    const outcome = await raceCleanAgainstWriter(1_000, "live-forced");
    expect(outcome).toMatchObject({ status: "refused", kept: 1_000, duplicated: false, inOrder: true });
  });
});
