import { describe, expect, it } from "vitest";
import type { MockRequest } from "../host/mock-model.js";
import { checkPromptContract, conversationAt, USER_STUB_FLOOR_CHARS } from "../host/prompt-contract.js";
import { condensedNote } from "../../src/summary/user-turns.js";

const HANDLE = `ledger:v1:sha256:${"a".repeat(64)}`;
const sent = [
  { text: "set the timeout to 30\n\n[scenario s]", requestsBefore: 0 },
  { text: "now set it to 60\n\n[scenario s]", requestsBefore: 1 },
  { text: "what is the timeout?\n\n[scenario s]", requestsBefore: 2 },
];

function request(index: number, messages: unknown[]): MockRequest {
  return { index, messages, lastMessage: messages.at(-1), userText: "" } as unknown as MockRequest;
}
const u = (text: string) => ({ role: "user", content: text });
const summary = (lines: string[]) => u(["[context-ledger summary]", ...lines, "[/context-ledger summary]"].join("\n"));
const quote = (turn: number) => `Turn ${turn}: ${JSON.stringify(sent[turn - 1]!.text)}`;

describe("the prompt contract checker", () => {
  it("passes a request that shows every earlier user message, verbatim or quoted under its number", () => {
    const ok = request(2, [
      { role: "system", content: "sys" },
      summary([quote(1)]),
      u(sent[1]!.text),
      u(sent[2]!.text),
    ]);
    expect(checkPromptContract([ok], sent)).toEqual([]);
  });

  it("names a missing user message, a wrong turn number, two blocks and a 1970 date, with the request", () => {
    const bad = request(2, [
      summary(["Turn 1: (nothing)", `Turn 2: ${JSON.stringify(sent[1]!.text)}`]),
      u("[Thu 1970-01-01 00:00 UTC] [context-ledger summary]\nturns 1-1\n[/context-ledger summary]"),
      u(sent[2]!.text),
    ]);
    const clauses = checkPromptContract([bad], sent).map((v) => `${v.request} ${v.clause}`);
    expect(clauses).toEqual(["2 one-summary", "2 user-messages", "2 real-dates"]);
    const relabelled = request(2, [summary([`Turn 2: ${JSON.stringify(sent[0]!.text)}`, quote(2)]), u(sent[2]!.text)]);
    expect(checkPromptContract([relabelled], sent).map((v) => v.clause)).toEqual(["turn-numbers"]);
  });

  it("names a summary whose own labels count past the conversation's turns, or tell a turn twice", () => {
    const told = (lines: string[]) =>
      request(2, [
        summary(["Earlier conversation: turns 1-2, no longer shown in full.", quote(1), quote(2), ...lines]),
      ]);
    const checked = (lines: string[]) =>
      checkPromptContract([told(lines)], sent)
        .filter((v) => v.clause === "turn-numbers")
        .map((v) => v.detail);
    expect(checked(["Turns 1-1 (condensed; 1 tool calls, 0 failed):", 'Turn 2: Answer: "ok"'])).toEqual([]);
    const twice = 'Turn 2: Answer: "ok"';
    expect(checked(["Turns 1-5 (condensed; 5 tool calls, 0 failed):", twice, twice])).toEqual([
      "the condensed part is titled turns 1-5",
      "turn 2 told twice in detail",
    ]);
  });

  it("names a stub longer than what it stands for, a short user message stubbed, and a handle not stored", () => {
    const stub = `[context-ledger artifact ${HANDLE}]\nuser message part · 22 chars · 1 line · text\n${"preview ".repeat(100)}`;
    const r = request(0, [u(stub), u(sent[0]!.text)]);
    const clauses = checkPromptContract([r], sent, new Set()).map((v) => v.clause);
    expect(clauses).toEqual(["stub-size", "user-stub-floor", "handles-resolve"]);
    expect(USER_STUB_FLOOR_CHARS).toBeGreaterThan(1_000);
  });

  it("names a tool call without its result", () => {
    const r = request(0, [
      u(sent[0]!.text),
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "exec" } }] },
      { role: "assistant", content: "done" },
    ]);
    expect(checkPromptContract([r], sent).map((v) => v.clause)).toEqual(["tool-pairs"]);
  });

  it("starts the conversation again at /new and leaves other commands out of it", () => {
    const withCommands = [
      ...sent.slice(0, 2),
      { text: "/ledger status", requestsBefore: 2 },
      { text: "/new", requestsBefore: 2 },
      { text: "fresh start\n\n[scenario s]", requestsBefore: 2 },
    ];
    expect(conversationAt(withCommands, 5)).toEqual(["fresh start\n\n[scenario s]"]);
    expect(conversationAt(withCommands, 1)).toEqual(sent.slice(0, 2).map((s) => s.text));
  });

  it("passes a condensed quote only over the stated share, with the true size and the message's own words", () => {
    const t1 = sent[0]!.text;
    const condensed = (size: number, kept: string) => `Turn 1 (condensed from ${size} chars): ${JSON.stringify(kept)}`;
    const check = (lines: string[]) =>
      checkPromptContract([request(2, [summary(lines), u(sent[1]!.text), u(sent[2]!.text)])], sent).map(
        (v) => v.clause,
      );
    expect(check([condensedNote(20), condensed(t1.length, "… timeout to 30 …")])).toEqual([]);
    // Under the share it states, an invented word, a wrong size, no statement of the share at all.
    expect(check([condensedNote(5_000), condensed(t1.length, "… timeout to 30 …")])).toEqual(["user-messages"]);
    expect(check([condensedNote(20), condensed(t1.length, "… timeout to 45 …")])).toEqual(["user-messages"]);
    expect(check([condensedNote(20), condensed(t1.length + 1, "… timeout to 30 …")])).toEqual(["user-messages"]);
    expect(check([condensed(t1.length, "… timeout to 30 …")])).toEqual(["user-messages"]);
  });
});
