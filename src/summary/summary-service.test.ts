import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extendSummary } from "./extend-summary.js";
import { saveSummary } from "./sidecar.js";
import { conversationEpoch, summaryPath } from "./summary-epoch.js";
import { continuedEpoch } from "./summary-service.js";
import { createSummaryState } from "./summary-state.js";

const turn = (i: number): unknown[] => [
  { role: "user", content: `Request ${i}: check shard ${i}.` },
  { role: "assistant", content: [{ type: "text", text: `Shard ${i} is fine.` }] },
];
const conversation = (from: number, to: number): unknown[] =>
  Array.from({ length: to - from }, (_, k) => turn(from + k)).flat();

describe("continuedEpoch", () => {
  let dir: string | undefined;
  afterEach(async () => dir && rm(dir, { recursive: true, force: true }));

  it("continues the sidecar whose covered messages the tail still shows, and starts a new epoch after a reset", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ledger-epoch-"));
    const full = conversation(0, 12);
    const epoch = conversationEpoch(full);
    await saveSummary(summaryPath(dir, epoch), extendSummary(createSummaryState(epoch), full, 10));
    // The host dropped turns 0-2 from the front: the first user message (the naive epoch) changed.
    const tail = conversation(3, 13);
    expect(conversationEpoch(tail)).not.toBe(epoch);
    expect(await continuedEpoch(dir, tail)).toBe(epoch);
    // A reset shows none of what the sidecar covered.
    const fresh = conversation(100, 102);
    expect(await continuedEpoch(dir, fresh)).toBe(conversationEpoch(fresh));
  });
});
