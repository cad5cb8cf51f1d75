import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { factRecall, generatePlantedConversation } from "../../test/support/planted-facts.js";
import { sealCheckpoint } from "./checkpoint.js";
import { extendSummary } from "./extend-summary.js";
import { renderSummaryReport } from "./render-summary.js";
import { createSummaryState, messageFingerprint } from "./summary-state.js";

const stash = async (content: string) => ({
  handle: `ledger:v1:sha256:${createHash("sha256").update(content).digest("hex")}`,
});

describe("planted-facts generator", () => {
  it("is deterministic and plants 40 facts, 8 of each kind, in the first 15 turns", () => {
    const a = generatePlantedConversation();
    const b = generatePlantedConversation();
    expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
    expect(a.turnStarts).toHaveLength(60);
    expect(a.facts).toHaveLength(40);
    for (const kind of ["decision", "file", "error", "number", "handle"])
      expect(a.facts.filter((f) => f.kind === kind)).toHaveLength(8);
    expect(Math.max(...a.facts.map((f) => f.turn))).toBe(15);
    const early = JSON.stringify(a.messages.slice(0, a.turnStarts[15]));
    expect(factRecall(early, a.facts).share).toBe(1);
    const late = JSON.stringify(a.messages.slice(a.turnStarts[15]));
    expect(factRecall(late, a.facts).recalled).toBe(0);
    expect(JSON.stringify(generatePlantedConversation({ seed: 7 }).messages)).not.toBe(JSON.stringify(a.messages));
  });
});

describe("continuity of the deterministic summary", () => {
  it("keeps at least 90% of the planted facts in a 4,000-char summary of the first 45 turns", () => {
    const conv = generatePlantedConversation();
    const state = extendSummary(createSummaryState("e"), conv.messages, conv.turnStarts[45]!);
    const r = renderSummaryReport(state, { maxChars: 4000, checkpointHandle: `ledger:v1:sha256:${"0".repeat(64)}` });
    const recall = factRecall(r.text, conv.facts);
    console.info(
      `[continuity] summary of 45 turns at 4000 chars: ${recall.recalled}/${recall.total} facts (${(recall.share * 100).toFixed(1)}%), ${r.text.length} chars, missing: ${recall.missing.map((f) => f.id).join(", ") || "none"}`,
    );
    expect(r.text.length).toBeLessThanOrEqual(4000);
    // 37 since the summary stopped printing message indices: one planted number (number-6) had matched an index range
    // by chance.
    expect(recall.recalled).toBe(37);
    expect(recall.share).toBeGreaterThanOrEqual(0.9);
  });

  it("keeps at least 90% after 60 turns and 3 compactions (summary plus the recent turns)", async () => {
    const conv = generatePlantedConversation();
    let state = createSummaryState("e");
    for (const frontierTurn of [15, 30, 45]) {
      const frontier = conv.turnStarts[frontierTurn]!;
      state = extendSummary(state, conv.messages, frontier);
      state = (
        await sealCheckpoint(state, {
          frontierIndex: frontier,
          frontierFingerprint: messageFingerprint(conv.messages[frontier]),
          stash,
        })
      ).state;
    }
    expect(state.checkpoints).toHaveLength(3);
    const r = renderSummaryReport(state, { maxChars: 4000 });
    const recent = JSON.stringify(conv.messages.slice(conv.turnStarts[45]));
    const recall = factRecall(`${r.text}\n${recent}`, conv.facts);
    console.info(
      `[continuity] 60 turns, 3 compactions: ${recall.recalled}/${recall.total} facts (${(recall.share * 100).toFixed(1)}%), missing: ${recall.missing.map((f) => f.id).join(", ") || "none"}`,
    );
    expect(r.text).toContain(state.checkpoints.at(-1)!.handle);
    expect(r.text.length).toBeLessThanOrEqual(4000);
    expect(recall.share).toBeGreaterThanOrEqual(0.9);
  });
});
