import { describe, expect, it } from "vitest";
import { refineSummary, type SummaryLlm } from "./refine-summary.js";

const H = `ledger:v1:sha256:${"77".repeat(32)}`;
const base = `[context-ledger summary]\nTurn 1: User: "Fix src/a.ts" | Tools: exec(command=npm test) failed exit 1 "E1042 boom" -> ${H}\nTurn 2: User: "Fix src/a.ts again" | Answer: "Done."\n[/context-ledger summary]`;

function llm(answer: (prompt: string, signal?: AbortSignal) => Promise<{ text?: unknown }>): SummaryLlm & { calls: number } {
  const impl = {
    calls: 0,
    complete(params: Parameters<SummaryLlm["complete"]>[0]) {
      impl.calls++;
      return answer(params.messages[0]!.content, params.signal);
    },
  };
  return impl;
}

describe("refineSummary", () => {
  it("takes a shorter answer that keeps every handle, code and path", async () => {
    const model = llm(async () => ({ text: `Turns 1-2: fixing src/a.ts; npm test failed (E1042), log ${H}.` }));
    const r = await refineSummary(base, model);
    expect(r).toEqual({ text: `[context-ledger summary]\nTurns 1-2: fixing src/a.ts; npm test failed (E1042), log ${H}.\n[/context-ledger summary]`, refined: true, outcome: "refined" });
  });

  it("falls back to the deterministic text when the model drops a fact, errs, answers empty or too long", async () => {
    expect((await refineSummary(base, llm(async () => ({ text: "Fixed a file; a test failed." })))).outcome).toBe("lost_facts");
    expect((await refineSummary(base, llm(async () => Promise.reject(new Error("503"))))).outcome).toBe("error");
    expect((await refineSummary(base, llm(async () => ({ text: 42 })))).outcome).toBe("empty");
    const long = await refineSummary(base, llm(async () => ({ text: `${H} src/a.ts E1042 ${"x".repeat(5000)}` })), { maxChars: 1000 });
    expect(long).toEqual({ text: base, refined: false, outcome: "too_long" });
  });

  it("falls back on timeout and aborts the call", async () => {
    let aborted = false;
    const model = llm(
      (_p, signal) =>
        new Promise((resolve) => {
          signal?.addEventListener("abort", () => {
            aborted = true;
            resolve({ text: "late" });
          });
        }),
    );
    const r = await refineSummary(base, model, { timeoutMs: 20 });
    expect(r).toEqual({ text: base, refined: false, outcome: "timeout" });
    expect(aborted).toBe(true);
  });

  it("spends nothing on inputs over the spend limit", async () => {
    const model = llm(async () => ({ text: "never" }));
    expect((await refineSummary(base, model, { maxSpendChars: 10 })).outcome).toBe("over_spend");
    expect(model.calls).toBe(0);
  });
});
