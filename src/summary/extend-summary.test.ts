import { describe, expect, it } from "vitest";
import { extendSummary } from "./extend-summary.js";
import { createSummaryState, messageFingerprint } from "./summary-state.js";

const H = `ledger:v1:sha256:${"cd".repeat(32)}`;

/* One realistic tool-heavy turn: request, two tool calls (one failing, one offloaded to a stub), a decision. */
function realisticTurn(): unknown[] {
  return [
    {
      role: "user",
      content:
        "The invoice job crashed overnight. Check logs/worker.log and rerun the tests in src/billing/invoice.test.ts.",
      timestamp: 1,
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "look at the log first" },
        { type: "text", text: "Looking at the log first." },
        { type: "toolCall", id: "c1", name: "read", arguments: { path: "logs/worker.log" } },
        {
          type: "toolCall",
          id: "c2",
          name: "exec",
          arguments: { command: "npx vitest run src/billing/invoice.test.ts", timeout: 120 },
        },
      ],
    },
    {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read",
      content: [
        {
          type: "text",
          text: `[context-ledger artifact ${H}]\n182,340 chars, 2,104 lines, log\nFetch with ledger_fetch.`,
        },
      ],
      isError: false,
    },
    {
      role: "toolResult",
      toolCallId: "c2",
      toolName: "exec",
      content: [
        {
          type: "text",
          text: "✓ totals (3ms)\n✗ rounding\nAssertionError: expected 1999 to be 2000 (ERR_INVOICE_TOTAL_MISMATCH)\nexit code 1",
        },
      ],
      isError: true,
      details: { exitCode: 1 },
    },
    { role: "user", content: "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nnote\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>" },
    {
      role: "assistant",
      content: [
        {
          type: "text",
          text: "The rounding test fails with ERR_INVOICE_TOTAL_MISMATCH. We decided to store money as integer cents. The batch limit stays at 2500 rows.",
        },
      ],
    },
  ];
}

describe("extendSummary", () => {
  it("extracts requests, decisions, tool calls with outcomes, handles, files and errors from a realistic turn", () => {
    const messages = realisticTurn();
    const s = extendSummary(createSummaryState("e"), messages, messages.length);
    expect(s.coveredCount).toBe(6);
    expect(s.coveredFingerprint).toBe(messageFingerprint(messages[5]));
    expect(s.entries).toHaveLength(1);
    const e = s.entries[0]!;
    expect([e.from, e.to]).toEqual([0, 6]);
    expect(e.user).toBe(
      "The invoice job crashed overnight. Check logs/worker.log and rerun the tests in src/billing/invoice.test.ts.",
    );
    expect(e.assistant).toBe(
      "The rounding test fails with ERR_INVOICE_TOTAL_MISMATCH. We decided to store money as integer cents. The batch limit stays at 2500 rows.",
    );
    expect(e.decisions).toEqual(["We decided to store money as integer cents."]);
    expect(e.facts).toEqual(["The batch limit stays at 2500 rows."]);
    expect(e.tools).toEqual([
      { id: "c1", name: "read", args: "path=logs/worker.log", outcome: "ok", handle: H },
      {
        id: "c2",
        name: "exec",
        args: "command=npx vitest run src/billing/invoice.test.ts",
        outcome: "error",
        exitCode: 1,
        error: "AssertionError: expected 1999 to be 2000 (ERR_INVOICE_TOTAL_MISMATCH)",
      },
    ]);
    expect(e.files).toEqual(["logs/worker.log", "src/billing/invoice.test.ts"]);
    expect(e.handles).toEqual([H]);
    expect(e.errors).toContain("ERR_INVOICE_TOTAL_MISMATCH");
    expect(e.errors).toContain("AssertionError");
    expect(e.errors).toContain("The invoice job crashed overnight.");
  });

  it("gives the same record whether extended in one go or message by message", () => {
    const messages = [...realisticTurn(), ...realisticTurn()];
    const once = extendSummary(createSummaryState("e"), messages, messages.length);
    for (let cut = 0; cut <= messages.length; cut++) {
      const split = extendSummary(extendSummary(createSummaryState("e"), messages, cut), messages, messages.length);
      expect(split).toEqual(once);
    }
    expect(once.entries.map((e) => [e.from, e.to])).toEqual([
      [0, 6],
      [6, 12],
    ]);
  });

  it("does not mutate its input and ignores targets behind the covered count", () => {
    const messages = realisticTurn();
    const half = extendSummary(createSummaryState("e"), messages, 3);
    const frozen = JSON.stringify(half);
    const full = extendSummary(half, messages, 6);
    expect(JSON.stringify(half)).toBe(frozen);
    expect(full.entries[0]!.tools[1]!.outcome).toBe("error");
    expect(half.entries[0]!.tools[1]!.outcome).toBe("pending");
    expect(extendSummary(full, messages, 2)).toBe(full);
    expect(extendSummary(full, messages, 99).coveredCount).toBe(6);
  });

  it("skips the engine's own blocks and host internals, covering them without a turn", () => {
    const messages = [
      {
        role: "user",
        content:
          '[context-ledger summary]\nTurn 1 (msgs 0-3): User: "old" | Files: secret/old.ts\n[/context-ledger summary]',
      },
      { role: "user", content: [{ type: "text", text: "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> x" }] },
      { role: "user", content: "Deploy to staging." },
      {
        role: "assistant",
        content: [
          { type: "text", text: "[context-ledger checkpoint]\nold text\n[/context-ledger checkpoint]" },
          { type: "text", text: "Deployed." },
        ],
      },
    ];
    const s = extendSummary(createSummaryState("e"), messages, messages.length);
    expect(s.coveredCount).toBe(4);
    expect(s.entries.map((e) => [e.from, e.to, e.user ?? null])).toEqual([
      [0, 2, null],
      [2, 4, "Deploy to staging."],
    ]);
    expect(JSON.stringify(s)).not.toContain("context-ledger summary");
    expect(JSON.stringify(s)).not.toContain("secret/old.ts");
    expect(s.entries[1]!.assistant).toBe("Deployed.");
  });

  it("never throws on malformed messages and still covers them", () => {
    const junk: unknown[] = [
      null,
      42,
      "text",
      { role: "user" },
      { role: "assistant", content: "not an array" },
      {
        role: "assistant",
        content: [null, { type: "toolCall" }, { type: "toolCall", id: 5, name: {}, arguments: "{bad json" }],
      },
      { role: "toolResult", content: 7, isError: "yes" },
      { role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
    ];
    const s = extendSummary(createSummaryState("e"), junk, junk.length);
    expect(s.coveredCount).toBe(8);
    expect(s.entries.at(-1)!.user).toBe("[1 image]");
    expect(s.entries[0]!.tools.map((t) => [t.name, t.outcome])).toEqual([
      ["tool", "pending"],
      ["tool", "pending"],
      ["tool", "ok"],
    ]);
  });

  it("bounds an entry however large the turn", () => {
    const calls = Array.from({ length: 100 }, (_, i) => [
      {
        role: "assistant",
        content: [
          {
            type: "toolCall",
            id: `c${i}`,
            name: "exec",
            arguments: { command: `cat file${i}.txt ${"x".repeat(5000)}` },
          },
        ],
      },
      {
        role: "toolResult",
        toolCallId: `c${i}`,
        toolName: "exec",
        content: [{ type: "text", text: `Error E${1000 + i}\n`.repeat(2000) }],
        isError: true,
      },
    ]).flat();
    const messages = [{ role: "user", content: `Go. ${"word ".repeat(50_000)}` }, ...calls];
    const s = extendSummary(createSummaryState("e"), messages, messages.length);
    const e = s.entries[0]!;
    expect(e.tools).toHaveLength(24);
    expect(e.toolsOmitted).toBe(76);
    expect(e.errors.length).toBeLessThanOrEqual(8);
    expect(e.files.length).toBeLessThanOrEqual(24);
    expect(JSON.stringify(s).length).toBeLessThan(20_000);
  });
});
