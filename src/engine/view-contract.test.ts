import { describe, expect, it } from "vitest";
import { HANDLE_PREFIX } from "../artifacts/index.js";
import { SUMMARY_OPEN, summaryMessage } from "../host/messages.js";
import { buildStub } from "../results/stub.js";
import type { ContractReading } from "../state/view-record.js";
import { citedHandles, judgeContract, type AssembledPrompt } from "./view-contract.js";

const HANDLE = `${HANDLE_PREFIX}${"a".repeat(64)}`;
const OTHER = `${HANDLE_PREFIX}${"b".repeat(64)}`;
const user = (text: string) => ({ role: "user", content: text });
const answer = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });
const callOf = (id: string) => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "exec", arguments: {} }],
});
const resultOf = (id: string, text: string) => ({
  role: "toolResult",
  toolCallId: id,
  content: [{ type: "text", text }],
});
const output = "line of build output\n".repeat(2_000);
const stub = buildStub({ handle: HANDLE, text: output, label: "exec" });

/** A prompt that keeps every message of `shown` as it stands but `replace`d ones. */
function sent(shown: unknown[], from: number, summaryText?: string, replace: Record<number, unknown> = {}) {
  const keptIndexes = shown.map((_, i) => i).filter((i) => i >= from);
  return { shown, keptIndexes, kept: keptIndexes.map((i) => replace[i] ?? shown[i]), summaryText } as AssembledPrompt;
}

/** Judges `prompt` with its own cited handles. */
const judge = (prompt: AssembledPrompt, isStored: (handle: string) => boolean) =>
  judgeContract(prompt, citedHandles(prompt), isStored);

const verdicts = (readings: ContractReading[]) => Object.fromEntries(readings.map((r) => [r.clause, r.verdict]));

describe("the prompt contract judged on what the engine assembled", () => {
  const shown = [user("first question"), callOf("c1"), resultOf("c1", output), answer("done"), user("second")];

  it("keeps every clause it can judge for a stubbed output, an older message quoted, and a stored handle", () => {
    const summary = `${SUMMARY_OPEN}\nWhat the user wrote:\nTurn 1: "first question"\n[/context-ledger summary]`;
    const prompt = sent(shown, 1, summary, { 2: resultOf("c1", stub) });
    const readings = judge(prompt, (h) => h === HANDLE);
    expect(verdicts(readings)).toEqual({
      "user-messages": "kept",
      "turn-numbers": "request-body",
      "stub-size": "kept",
      "user-stub-floor": "kept",
      "one-summary": "kept",
      "real-dates": "request-body",
      "handles-resolve": "kept",
      "tool-pairs": "kept",
    });
    expect(readings.find((r) => r.clause === "user-messages")?.detail).toContain("1 verbatim, 1 quoted whole");
    expect([...citedHandles(prompt)]).toEqual([HANDLE]);
  });

  it("names a user message left out of both the prompt and the summary", () => {
    const readings = judge(sent(shown, 1, `${SUMMARY_OPEN}\nturns before\n`), () => true);
    const r = readings.find((x) => x.clause === "user-messages");
    expect(r?.verdict).toBe("broken");
    expect(r?.detail).toContain("message #0");
  });

  it("accepts a condensed quote only when it states the message's size and keeps its words", () => {
    const long = `${"Set the queue to q-7. ".repeat(40)}Then run the report.`;
    const list = [user(long), answer("ok"), user("next")];
    const line = (size: number, words: string) => `Turn 1 (condensed from ${size} chars): ${JSON.stringify(words)}`;
    const honest = judge(sent(list, 1, line(long.length, "Set the queue to q-7. … Then run the report.")), () => true);
    const wrongSize = judge(sent(list, 1, line(long.length - 1, "Set the queue to q-7. …")), () => true);
    const otherWords = judge(sent(list, 1, line(long.length, "Set the queue to q-9. …")), () => true);
    expect(verdicts(honest)["user-messages"]).toBe("kept");
    expect(verdicts(wrongSize)["user-messages"]).toBe("broken");
    expect(verdicts(otherWords)["user-messages"]).toBe("broken");
  });

  it("breaks on a stub not shorter than what it states, and on a short user part stubbed", () => {
    // Stubs as the model reads them: the head, then the size the stub states it stands for.
    const stated = (handle: string, label: string, chars: number, pad: number) =>
      `[context-ledger artifact ${handle}]\n${label} · ${chars.toLocaleString("en-US")} chars · 1 lines · text\n${"p".repeat(pad)}`;
    const list = [user("run it"), callOf("c1"), resultOf("c1", output), user("y".repeat(3_000))];
    const shaped = {
      2: resultOf("c1", stated(HANDLE, "exec output", 120, 200)),
      3: user(stated(OTHER, "part", 3_000, 0)),
    };
    const readings = judge(sent(list, 0, undefined, shaped), () => true);
    expect(verdicts(readings)["stub-size"]).toBe("broken");
    expect(readings.find((r) => r.clause === "stub-size")?.detail).toContain("for 120 chars");
    expect(verdicts(readings)["user-stub-floor"]).toBe("broken");
    // The user message itself is then neither sent whole nor quoted.
    expect(verdicts(readings)["user-messages"]).toBe("broken");
  });

  it("counts two summary blocks, an unanswered call, and a handle the store lacks", () => {
    const list = [summaryMessage(`${SUMMARY_OPEN}\nold`), user("go"), callOf("c1"), answer(`see ${OTHER}`)];
    const readings = judge(sent(list, 0, `${SUMMARY_OPEN}\nnew`), (h) => h === HANDLE);
    expect(verdicts(readings)).toMatchObject({
      "one-summary": "broken",
      "tool-pairs": "broken",
      "handles-resolve": "broken",
    });
    expect(readings.find((r) => r.clause === "tool-pairs")?.detail).toContain("call c1 has no result");
  });
});
