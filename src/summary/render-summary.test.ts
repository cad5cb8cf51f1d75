import { describe, expect, it } from "vitest";
import { sealCheckpoint } from "./checkpoint.js";
import { extendSummary } from "./extend-summary.js";
import { renderSummary, renderSummaryReport, SUMMARY_CLOSE, SUMMARY_OPEN } from "./render-summary.js";
import { createSummaryState, type SummaryState } from "./summary-state.js";

const fakeStash = async (content: string) => {
  const { createHash } = await import("node:crypto");
  return { handle: `ledger:v1:sha256:${createHash("sha256").update(content).digest("hex")}` };
};

function turn(i: number): unknown[] {
  return [
    { role: "user", content: `Step ${i}: check services/svc-${i}/main.go for the leak.` },
    {
      role: "assistant",
      content: [
        { type: "toolCall", id: `c${i}`, name: "exec", arguments: { command: `go test ./services/svc-${i}/...` } },
      ],
    },
    {
      role: "toolResult",
      toolCallId: `c${i}`,
      toolName: "exec",
      content: [
        { type: "text", text: i % 3 === 0 ? `panic: E${4000 + i} pool exhausted\nexit code 2` : "ok\nexit code 0" },
      ],
      isError: i % 3 === 0,
    },
    {
      role: "assistant",
      content: [{ type: "text", text: `Checked svc-${i}. We will keep the pool size at ${10 + i} connections.` }],
    },
  ];
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe("renderSummary", () => {
  it("renders every turn in detail while it fits, between the markers", () => {
    const messages = [turn(1), turn(2), turn(3)].flat();
    const s = extendSummary(createSummaryState("e"), messages, messages.length);
    const r = renderSummaryReport(s);
    expect(r.text.startsWith(`${SUMMARY_OPEN}\n`)).toBe(true);
    expect(r.text.endsWith(`\n${SUMMARY_CLOSE}`)).toBe(true);
    expect([r.detailedTurns, r.condensedTurns, r.needsCheckpoint]).toEqual([3, 0, false]);
    expect(r.text).toContain(
      'Turn 3: User: "Step 3: check services/svc-3/main.go for the leak." | Answer: "Checked svc-3. We will keep the pool size at 13 connections." | Decided: We will keep the pool size at 13 connections. | Tools: exec(command=go test ./services/svc-3/...) failed exit 2 "panic: E4003 pool exhausted" | Errors: E4003; panic: E4003 pool exhausted',
    );
    expect(r.text).not.toContain("Full record");
  });

  it("condenses older turns under the bound and names the checkpoint to fetch them from", () => {
    const messages = Array.from({ length: 80 }, (_, i) => turn(i + 1)).flat();
    const s = extendSummary(createSummaryState("e"), messages, messages.length);
    const noHandle = renderSummaryReport(s, { maxChars: 2000 });
    expect(noHandle.needsCheckpoint).toBe(true);
    expect(noHandle.text.length).toBeLessThanOrEqual(2000);
    const handle = `ledger:v1:sha256:${"12".repeat(32)}`;
    const r = renderSummaryReport(s, { maxChars: 2000, checkpointHandle: handle });
    expect(r.text.length).toBeLessThanOrEqual(2000);
    expect(r.detailedTurns + r.condensedTurns).toBe(80);
    expect(r.condensedTurns).toBeGreaterThan(60);
    expect(r.text).toContain(`Full record of condensed turns: checkpoint ${handle}. Read it with ledger_fetch`);
    expect(r.text).toContain("Turn 80:");
    expect(r.text).toMatch(/Turns 1-\d+ \(condensed; \d+ tool calls, 26 failed: exec x\d+\):/);
    expect(r.text).toContain("- Errors: E4003; E4006");
    expect(renderSummary(s, { maxChars: 2000, checkpointHandle: handle })).toBe(r.text);
  });

  it("quotes the user's messages on top of the rest's bound, condensed past their own", () => {
    const messages = Array.from({ length: 80 }, (_, i) => turn(i + 1)).flat();
    const s = extendSummary(createSummaryState("e"), messages, messages.length);
    const userTurns = Array.from({ length: 80 }, (_, i) => ({
      turn: i + 1,
      text: `Step ${i + 1}: check svc-${i + 1}.`,
    }));
    const whole = renderSummaryReport(s, { maxChars: 2000, userTurns, userChars: 5_000 }).text;
    expect(whole.length).toBeLessThanOrEqual(2000 + 5_000);
    expect(userTurns.every((u) => whole.includes(`Turn ${u.turn}: "${u.text}"`))).toBe(true);
    const tight = renderSummaryReport(s, { maxChars: 2000, userTurns, userChars: 1_000 }).text;
    expect(tight.length).toBeLessThanOrEqual(2000 + 1_000);
    expect(tight).toMatch(/Quoted whole, these messages would pass 1,000 chars, their share of the prompt/);
    expect(tight).toContain('Turn 80: "Step 80: check svc-80."');
  });

  it("never exceeds maxChars, whatever the bound", () => {
    const messages = Array.from({ length: 40 }, (_, i) => turn(i + 1)).flat();
    const s = extendSummary(createSummaryState("e"), messages, messages.length);
    for (const maxChars of [0, 1, 150, 200, 333, 800, 1500, 4000, 12_000, Number.NaN]) {
      const text = renderSummary(s, { maxChars });
      expect(text.length).toBeLessThanOrEqual(Number.isFinite(maxChars) ? Math.max(200, maxChars) : 4000);
      expect(text.startsWith(SUMMARY_OPEN)).toBe(true);
      expect(text.endsWith(SUMMARY_CLOSE)).toBe(true);
    }
  });

  it("renders an empty record honestly", () => {
    expect(renderSummary(createSummaryState("e"))).toBe(
      `${SUMMARY_OPEN}\nNo earlier turns recorded.\n${SUMMARY_CLOSE}`,
    );
  });

  it("applies redaction to recorded text", () => {
    const messages = [{ role: "user", content: "Use token sk-live-123456 for the deploy." }];
    const s = extendSummary(createSummaryState("e"), messages, 1);
    const text = renderSummary(s, { redact: (t) => t.replace(/sk-live-\w+/g, "[redacted]") });
    expect(text).toContain("Use token [redacted] for the deploy.");
    expect(text).not.toContain("sk-live");
  });

  it("neither nests nor grows past its bound over 100 cycles that feed the summary back in", async () => {
    const maxChars = 4000;
    let messages: unknown[] = [];
    let state: SummaryState = createSummaryState("e");
    let rendered = "";
    const lengths: number[] = [];
    for (let cycle = 1; cycle <= 100; cycle++) {
      // The previous summary comes back as a marked message (and quoted by the model), then a real turn.
      if (rendered) {
        messages = [
          ...messages,
          { role: "user", content: rendered },
          { role: "assistant", content: [{ type: "text", text: `Noted.\n${rendered}` }] },
        ];
      }
      messages = [...messages, ...turn(cycle)];
      state = extendSummary(state, messages, messages.length);
      if (cycle % 10 === 0)
        state = (
          await sealCheckpoint(state, { frontierIndex: messages.length, frontierFingerprint: null, stash: fakeStash })
        ).state;
      rendered = renderSummary(state, { maxChars });
      lengths.push(rendered.length);
      expect(rendered.length).toBeLessThanOrEqual(maxChars);
      expect(count(rendered, SUMMARY_OPEN)).toBe(1);
      expect(count(rendered, SUMMARY_CLOSE)).toBe(1);
    }
    expect(JSON.stringify(state)).not.toContain("[context-ledger summary");
    expect(JSON.stringify(state)).not.toContain("(condensed;");
    expect(JSON.stringify(state)).not.toContain("Full record");
    // The fed-back summaries open no turn of their own: one turn per cycle.
    expect(state.digest.turns + state.entries.length).toBe(100);
    expect(state.entries.length).toBeLessThanOrEqual(16 + 20);
    expect(JSON.stringify(state).length).toBeLessThan(60_000);
    expect(Math.max(...lengths.slice(50))).toBeLessThanOrEqual(maxChars);
    expect(rendered).toContain("Turn ");
  });
});
