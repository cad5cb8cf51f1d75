import { describe, expect, it } from "vitest";
import { buildCheckpointPack, restoreFromCheckpointPack, sealCheckpoint } from "./checkpoint.js";
import { extendSummary } from "./extend-summary.js";
import { reconcileSummary } from "./reconcile.js";
import { createSummaryState, messageFingerprint, type SummaryState } from "./summary-state.js";

const H = `ledger:v1:sha256:${"ef".repeat(32)}`;

function turn(i: number): unknown[] {
  return [
    { role: "user", content: `Request ${i}: run the job for src/mod${i}.ts.` },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: `t${i}`, name: "exec", arguments: { command: `run src/mod${i}.ts` } }],
    },
    {
      role: "toolResult",
      toolCallId: `t${i}`,
      toolName: "exec",
      content: [{ type: "text", text: `${"output line\n".repeat(2000)}exit code 0` }],
      isError: false,
    },
    { role: "assistant", content: [{ type: "text", text: `Job ${i} done.` }] },
  ];
}

function conversation(turns: number): unknown[] {
  return Array.from({ length: turns }, (_, i) => turn(i + 1)).flat();
}

function covered(messages: unknown[]): SummaryState {
  return extendSummary(createSummaryState("e"), messages, messages.length);
}

describe("reconcileSummary", () => {
  it("continues a record when the host dropped the front exactly where it ends: its turns lie before the list", () => {
    const messages = conversation(4);
    const to = 8; // turns 1-2 covered; the list the host passes opens with turn 3
    const s = extendSummary(createSummaryState("e"), messages, to);
    expect(s.nextFingerprint).toBe(messageFingerprint(messages[to]));
    const r = reconcileSummary(s, messages.slice(to));
    expect(r.reason).toBe("front_dropped");
    expect(r.rolledBack).toBe(false);
    expect(r.state.coveredCount).toBe(0);
    expect(r.state.entries.map((e) => [e.from, e.to])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    // A list that opens anywhere else continues nothing.
    expect(reconcileSummary(s, messages.slice(to + 1)).rolledBack).toBe(true);
  });

  it("moves a record back up when the list shows its front again, and never rolls back to a clamped entry", () => {
    const messages = conversation(4);
    const shifted = reconcileSummary(extendSummary(createSummaryState("e"), messages, 8), messages.slice(8)).state;
    // The whole transcript again: the record moves back up to where its turns are, and tells each once.
    const r = reconcileSummary(shifted, messages);
    expect(r).toMatchObject({ rolledBack: false, reason: "front_restored" });
    expect(r.state.coveredCount).toBe(8);
    const again = extendSummary(r.state, messages, 12);
    expect(again.entries.map((e) => e.user)).toEqual(
      [1, 2, 3].map((i) => `Request ${i}: run the job for src/mod${i}.ts.`),
    );
    // Clamped, the entries are no boundary to roll back to: a shorter list rolls back past them.
    const cut = reconcileSummary({ ...shifted, coveredCount: 3, coveredFingerprint: "gone" }, messages.slice(0, 2));
    expect(cut.state.entries.filter((e) => e.to === 0)).toEqual([]);
  });

  it("keeps a consistent state as it is", () => {
    const messages = conversation(3);
    const s = covered(messages);
    expect(reconcileSummary(s, [...messages, ...turn(9)])).toEqual({
      state: s,
      rolledBack: false,
      reason: "consistent",
    });
    const empty = createSummaryState("e");
    expect(reconcileSummary(empty, []).rolledBack).toBe(false);
  });

  it("keeps the same fingerprint when paydown rewrites a tool result into a stub", () => {
    const messages = conversation(3);
    const s = covered(messages);
    const rewritten = messages.map((m) =>
      (m as { role: string }).role === "toolResult"
        ? { ...(m as object), content: [{ type: "text", text: `[context-ledger artifact ${H}]\n24,000 chars` }] }
        : m,
    );
    expect(messageFingerprint(rewritten[2])).toBe(messageFingerprint(messages[2]));
    expect(reconcileSummary(s, rewritten).rolledBack).toBe(false);
  });

  it("rolls back to the last matching turn when the transcript is shorter (rewind, overflow truncation)", () => {
    const messages = conversation(5);
    const s = covered(messages);
    const r = reconcileSummary(s, messages.slice(0, 10));
    expect(r.rolledBack).toBe(true);
    expect(r.reason).toBe("transcript_shorter");
    expect(r.state.coveredCount).toBe(8);
    expect(r.state.entries).toHaveLength(2);
    expect(r.state.coveredFingerprint).toBe(messageFingerprint(messages[7]));
    expect(reconcileSummary(r.state, messages.slice(0, 10)).rolledBack).toBe(false);
  });

  it("rolls back when the transcript diverges (branch switch), then re-extends to the new branch", () => {
    const messages = conversation(4);
    const s = covered(messages);
    const branch = [
      ...messages.slice(0, 8),
      { role: "user", content: "Different question on a new branch." },
      ...turn(7).slice(1),
      ...turn(8),
    ];
    const r = reconcileSummary(s, branch);
    expect(r).toMatchObject({ rolledBack: true, reason: "transcript_diverged" });
    expect(r.state.coveredCount).toBe(8);
    const again = extendSummary(r.state, branch, branch.length);
    expect(again.entries.map((e) => e.user)).toEqual([
      "Request 1: run the job for src/mod1.ts.",
      "Request 2: run the job for src/mod2.ts.",
      "Different question on a new branch.",
      "Request 8: run the job for src/mod8.ts.",
    ]);
    expect(again).toEqual(covered(branch));
  });

  it("rolls back to empty when nothing matches (a different conversation)", () => {
    const s = covered(conversation(3));
    const other = [
      { role: "user", content: "hello" },
      { role: "assistant", content: [{ type: "text", text: "hi" }] },
    ];
    const r = reconcileSummary(s, other);
    expect(r.rolledBack).toBe(true);
    expect(r.state).toEqual(createSummaryState("e"));
    expect(r.restoreFrom).toBeUndefined();
  });

  it("uses the digest boundary, and points at a sealed checkpoint older than the digest", async () => {
    const messages = conversation(6);
    const stash = async (content: string) => ({
      handle: `ledger:v1:sha256:${content.length.toString(16).padStart(64, "0")}`,
    });
    let s = extendSummary(createSummaryState("e"), messages, 8);
    const first = await sealCheckpoint(s, {
      frontierIndex: 8,
      frontierFingerprint: messageFingerprint(messages[8]),
      stash,
      keepEntries: 0,
    });
    s = extendSummary(first.state, messages, 20);
    const second = await sealCheckpoint(s, { frontierIndex: 20, frontierFingerprint: null, stash, keepEntries: 1 });
    s = extendSummary(second.state, messages, 24);
    expect([s.digest.to, s.entries.length]).toEqual([16, 2]);

    // Diverges inside the detailed entries' range but after the digest: keeps the digest.
    const atDigest = reconcileSummary(s, [...messages.slice(0, 16), { role: "user", content: "new" }]);
    expect([atDigest.state.coveredCount, atDigest.state.entries.length, atDigest.state.digest.turns]).toEqual([
      16, 0, 4,
    ]);

    // Diverges before the digest's end, after the first checkpoint: restore from that pack.
    const early = [...messages.slice(0, 8), { role: "user", content: "rewound" }];
    const r = reconcileSummary(s, early);
    expect(r.state.coveredCount).toBe(0);
    expect(r.restoreFrom?.handle).toBe(first.handle);
    const restored = restoreFromCheckpointPack(first.pack, r.restoreFrom!);
    expect(restored.coveredCount).toBe(8);
    expect(restored.entries).toHaveLength(2);
    expect(reconcileSummary(restored, early).rolledBack).toBe(false);
    expect(() =>
      restoreFromCheckpointPack(
        buildCheckpointPack(s, { frontierIndex: 0, frontierFingerprint: null }),
        r.restoreFrom!,
      ),
    ).toThrow(/Expected checkpoint/);
  });
});

describe("a host that passes a tail of the transcript", () => {
  it("moves the record down when older messages were dropped from the front, losing nothing it covered", () => {
    const messages = conversation(6);
    const s = extendSummary(createSummaryState("e"), messages, 16);
    const tail = messages.slice(8);
    const r = reconcileSummary(s, tail);
    expect(r).toMatchObject({ rolledBack: false, reason: "front_dropped" });
    expect(r.state.coveredCount).toBe(8);
    expect(r.state.coveredFingerprint).toBe(s.coveredFingerprint);
    expect(r.state.entries.map((e) => e.user)).toEqual(s.entries.map((e) => e.user));
    // Extending from there reads the tail's next turn, as it would have read the full transcript's.
    expect(extendSummary(r.state, tail, 12).entries.at(-1)?.user).toBe(
      extendSummary(s, messages, 20).entries.at(-1)?.user,
    );
  });
});
