import { describe, expect, it } from "vitest";
import { raceCleanAgainstWriter } from "./clean-race.js";

describe("session clean racing a host writer", () => {
  it.each(["stale", "live-forced"] as const)(
    "loses no appended line with a %s lock (1,000 lines appended during the clean)",
    async (lock) => {
      for (let run = 0; run < 3; run++) {
        const outcome = await raceCleanAgainstWriter(1_000, lock);
        expect(outcome).toMatchObject({ status: "cleaned", kept: 1_000, duplicated: false });
      }
    },
  );
});
