import path from "node:path";
import { describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { prng } from "../support/prng.js";
import { useTempDir } from "../support/temp-dir.js";
import { raceLateWriter, startLateWriter, type LateRaceOutcome } from "./late-writer.js";

const RUNS = 1_000;
/** Races at once: the writer process serves them all, the cleans share this process. */
const AT_ONCE = 50;
const tmp = useTempDir("clean-late-soak-");

// The scale run of the race the unit project runs at small size: with `LEDGER_SOAK=1` (npm run test:soak).
const soak = describe.skipIf(!process.env.LEDGER_SOAK);

soak("session clean against writers pausing between open and write, 1,000 runs", () => {
  it("loses and reorders no line: every clean either replaces with the late lines carried or refuses", async () => {
    const rand = prng(4040) as () => number;
    const writer = await startLateWriter();
    const outcomes: LateRaceOutcome[] = [];
    const started = Date.now();
    try {
      const store = createArtifactStore({ root: path.join(tmp(), "artifacts") });
      // A pool: AT_ONCE races always in flight, each started as another ends.
      let next = 0;
      const lane = async (): Promise<void> => {
        for (let run = next++; run < RUNS; run = next++) {
          // Three lines, each written up to 500 ms after its open; the clean starts up to 600 ms into the first.
          const steps = Array.from({ length: 3 }, () => ({
            pause: Math.floor(rand() * 500),
            gap: Math.floor(rand() * 20),
          }));
          const cleanAfterMs = Math.floor(rand() * 600);
          outcomes.push(await raceLateWriter({ dir: tmp(), name: `run-${run}`, writer, store, steps, cleanAfterMs }));
        }
      };
      await Promise.all(Array.from({ length: AT_ONCE }, lane));
    } finally {
      await writer.stop();
    }
    const count = (f: (o: LateRaceOutcome) => boolean) => outcomes.filter(f).length;
    const lost = count((o) => o.lost > 0 || o.sessionLinesLost !== 0);
    const reordered = count((o) => o.reordered || o.duplicated);
    const cleaned = count((o) => o.status === "cleaned");
    const refused = count((o) => o.status === "refused");
    const late = count((o) => o.status === "cleaned" && (o.reason ?? "").includes("instant of the replace"));
    console.log(
      `[clean late writer] ${outcomes.length} runs in ${((Date.now() - started) / 1000).toFixed(1)} s: ${lost} lost, ${reordered} reordered; ${cleaned} cleaned (${late} with a writer still holding the old file), ${refused} refused`,
    );
    expect(outcomes).toHaveLength(RUNS);
    expect({ lost, reordered, other: RUNS - cleaned - refused }).toEqual({ lost: 0, reordered: 0, other: 0 });
    // Both paths were taken: the race is real.
    expect(cleaned).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 600_000);
});
