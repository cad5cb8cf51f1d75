import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isLedgerError } from "../errors.js";
import {
  buildCheckpointPack,
  CHECKPOINT_SCHEMA,
  parseCheckpointPack,
  sealCheckpoint,
  tryParseCheckpointPack,
} from "./checkpoint.js";
import { extendSummary } from "./extend-summary.js";
import { createSummaryState, messageFingerprint } from "./summary-state.js";

const stubHandle = `ledger:v1:sha256:${"9a".repeat(32)}`;
const extraHandle = `ledger:v1:sha256:${"0b".repeat(32)}`;

function messages(turns: number): unknown[] {
  return Array.from({ length: turns }, (_, i) => [
    { role: "user", content: `Task ${i + 1}: fetch the report.` },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: `c${i}`, name: "fetch", arguments: { url: `https://api.example.com/r/${i}` } }],
    },
    {
      role: "toolResult",
      toolCallId: `c${i}`,
      toolName: "fetch",
      content: [{ type: "text", text: `[context-ledger artifact ${stubHandle}]\n40,000 chars, json` }],
      isError: false,
    },
  ]).flat();
}

const stash = async (content: string) => ({
  handle: `ledger:v1:sha256:${createHash("sha256").update(content).digest("hex")}`,
});

describe("checkpoint packs", () => {
  it("round-trips: summary record, rendered text, handle index and frontier", () => {
    const msgs = messages(4);
    const s = extendSummary(createSummaryState("epoch-1"), msgs, 9);
    const text = buildCheckpointPack(s, {
      frontierIndex: 9,
      frontierFingerprint: messageFingerprint(msgs[9]),
      frontierEntryId: "entry-42",
      artifactHandles: [extraHandle, "not a handle"],
    });
    const pack = parseCheckpointPack(text);
    expect(pack.schema).toBe(CHECKPOINT_SCHEMA);
    expect(pack.epoch).toBe("epoch-1");
    expect(pack.frontier).toEqual({ index: 9, fingerprint: messageFingerprint(msgs[9]), entryId: "entry-42" });
    expect(pack.previous).toBeNull();
    expect(pack.artifacts).toEqual([extraHandle, stubHandle]);
    expect(pack.summary).toEqual(s);
    expect(pack.rendered.startsWith("[context-ledger summary]")).toBe(true);
    expect(pack.rendered).toContain("fetch(url=https://api.example.com/r/2) ok -> " + stubHandle);
    expect(
      buildCheckpointPack(s, {
        frontierIndex: 9,
        frontierFingerprint: messageFingerprint(msgs[9]),
        frontierEntryId: "entry-42",
        artifactHandles: [extraHandle],
      }),
    ).toBe(text);
  });

  it("seals: stashes the pack, records the checkpoint, folds older entries, chains packs", async () => {
    const msgs = messages(30);
    const stashed: string[] = [];
    const recordingStash = async (c: string) => {
      stashed.push(c);
      return stash(c);
    };
    const first = await sealCheckpoint(extendSummary(createSummaryState("e"), msgs, 60), {
      frontierIndex: 60,
      frontierFingerprint: null,
      stash: recordingStash,
      keepEntries: 5,
    });
    expect(first.state.checkpoints).toEqual([
      { coveredCount: 60, fingerprint: messageFingerprint(msgs[59]), handle: first.handle, turns: 20 },
    ]);
    expect([first.state.digest.turns, first.state.entries.length]).toEqual([15, 5]);
    expect(parseCheckpointPack(stashed[0]!).summary.entries).toHaveLength(20);

    const second = await sealCheckpoint(extendSummary(first.state, msgs, 90), {
      frontierIndex: 90,
      frontierFingerprint: null,
      stash: recordingStash,
    });
    const pack2 = parseCheckpointPack(second.pack);
    expect(pack2.previous).toBe(first.handle);
    expect(pack2.summary.digest.turns).toBe(15);
    expect(pack2.summary.entries).toHaveLength(15);
    expect(second.state.checkpoints.map((c) => c.handle)).toEqual([first.handle, second.handle]);
    expect([second.state.digest.turns, second.state.entries.length]).toEqual([15, 15]);
  });

  it("rejects what is not a valid pack with state_corrupt", () => {
    const good = JSON.parse(
      buildCheckpointPack(createSummaryState("e"), { frontierIndex: 0, frontierFingerprint: null }),
    );
    const bad = [
      "not json",
      "[]",
      JSON.stringify({ ...good, schema: "context-ledger.checkpoint.v0" }),
      JSON.stringify({ ...good, artifacts: ["ledger:v1:sha256:XYZ"] }),
      JSON.stringify({ ...good, summary: { ...good.summary, coveredCount: -1 } }),
      JSON.stringify({ ...good, summary: undefined }),
    ];
    for (const text of bad) {
      expect(tryParseCheckpointPack(text)).toBeUndefined();
      let caught: unknown;
      try {
        parseCheckpointPack(text);
      } catch (err) {
        caught = err;
      }
      expect(isLedgerError(caught, "state_corrupt")).toBe(true);
      expect((caught as Error).message).toMatch(/^Expected (a|the) /);
    }
  });
});
