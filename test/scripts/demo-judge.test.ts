/**
 * How the demo decides that a turn was answered, without a host: the history a user
 * reopens (assistant texts after the turn's message) against the answer the mock wrote,
 * byte for byte, with a clamped output allowance counted as a failed turn.
 */
import { describe, expect, it } from "vitest";
import { assistantTextsAfterUser } from "../../scripts/demo-history.js";
import { judgeTurn, turnAnswered, type TurnEvidence } from "../../scripts/demo-judge.js";
import { turnPromptBudget, writtenAnswers } from "../../scripts/demo-run.js";
import type { MockReply, MockRequest } from "../host/mock-model.js";
import { longText, SILENT_REPLY } from "../host/mock-scripts.js";

const answer = longText(12_000, 3);
const stub =
  "[context-ledger artifact ledger:v1:sha256:" +
  "ab".repeat(32) +
  "] assistant output · 12,000 chars\nIn chat: /ledger fetch ledger:v1:sha256:…";
const judge = (over: Partial<TurnEvidence>) =>
  judgeTurn({ shown: [answer], written: [answer], waitStatus: "ok", clamped: 0, ...over });

describe("judging a turn by the history a user reopens", () => {
  it("counts the model's answer shown once, byte for byte, as answered", () => {
    expect(judge({})).toEqual({ status: "answered", answered: true });
    // Another assistant text of the turn beside it (a host-internal run's reply) does not hide the answer.
    expect(judge({ shown: ["Noted the report path.", answer] })).toEqual({ status: "answered", answered: true });
  });

  it("counts a stub in place of the answer as not answered, and says a stub was shown", () => {
    expect(judge({ shown: [stub] })).toEqual({ status: "stub shown", answered: false });
    expect(judge({ shown: ["[chat.history omitted: message too large]"] })).toEqual({
      status: "stub shown",
      answered: false,
    });
    // A real endpoint's answer is not known: still, a stub alone is no answer.
    expect(judge({ shown: [stub], written: null })).toEqual({ status: "stub shown", answered: false });
  });

  it("counts an answer that is not byte-equal (the host's 8,000-char cut, a stub's preview) as altered", () => {
    const cut = `${answer.slice(0, 8_000)}\n...(truncated)...`;
    expect(judge({ shown: [cut] })).toEqual({ status: "answer altered", answered: false });
    expect(judge({ shown: [answer.slice(0, -1)] })).toEqual({ status: "answer altered", answered: false });
    expect(judge({ shown: [longText(12_000, 2)] })).toEqual({ status: "not answered", answered: false });
  });

  it("requires the answer once: shown twice is not answered", () => {
    expect(judge({ shown: [answer, answer] })).toEqual({ status: "answer shown 2×", answered: false });
  });

  it("counts a turn with a clamped output allowance as failed, even when the mock's whole answer was shown", () => {
    expect(judge({ clamped: 1 })).toEqual({ status: "cut off", answered: false });
    expect(judge({ clamped: 2, written: null })).toEqual({ status: "cut off", answered: false });
    expect(turnAnswered({ status: "answered", clamped: 1 })).toBe(false);
    expect(turnAnswered({ status: "answered", clamped: 0 })).toBe(true);
  });

  it("names the host's notices and a run that ended without a reply", () => {
    expect(
      judge({ shown: ["⚠️ Context limit exceeded. I've reset our conversation to start fresh - please try again."] }),
    ).toEqual({ status: "reset notice", answered: false });
    expect(judge({ shown: [answer, "Context is too large and auto-compaction could not recover this turn"] })).toEqual({
      status: "host notice",
      answered: false,
    });
    expect(judge({ shown: [], written: [], waitStatus: "timeout" })).toEqual({ status: "timeout", answered: false });
    expect(judge({ shown: [], written: [] })).toEqual({ status: "no reply", answered: false });
  });

  it("counts any shown text that is no notice and no placeholder as a real endpoint's answer", () => {
    expect(judge({ shown: ["Here is the summary."], written: null })).toEqual({ status: "answered", answered: true });
    expect(judge({ shown: [], written: null })).toEqual({ status: "no reply", answered: false });
  });
});

describe("reading the turn's texts from chat.history", () => {
  const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
  const assistant = (...texts: string[]) => ({
    role: "assistant",
    content: texts.map((text) => ({ type: "text", text })),
  });

  it("takes the assistant texts after the newest user message of the turn, joined per message", () => {
    const history = {
      messages: [
        user("Turn 1: run it."),
        assistant("Answer 1: old"),
        user("Turn 2: run it."),
        { role: "assistant", content: [{ type: "toolCall", name: "exec", arguments: {} }] },
        { role: "toolResult", content: [{ type: "text", text: "row 0 status=ok" }] },
        assistant("Answer 2: ", "new"),
        { role: "assistant", content: "plain string" },
      ],
    };
    expect(assistantTextsAfterUser(history, "Turn 2: run it.")).toEqual(["Answer 2: new", "plain string"]);
    expect(assistantTextsAfterUser({}, "Turn 2")).toEqual([]);
  });
});

describe("what the mock wrote for a turn", () => {
  const request = (index: number, over: Partial<MockRequest>): MockRequest =>
    ({
      index,
      turn: 1,
      indexInTurn: index,
      toolNames: ["exec", "read"],
      messages: [{ role: "user", content: "Turn 1: run it." }],
      ...over,
    }) as MockRequest;
  const withResult = [
    { role: "user", content: "Turn 1: run it." },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "exec" } }] },
    { role: "tool", tool_call_id: "c1", content: "row 0" },
  ];

  it("is the text answering the turn's tool result: not the tool call, a summary or the silent reply", () => {
    const requests = [
      request(0, {}),
      request(1, { messages: withResult }),
      request(2, { messages: withResult, toolNames: [] }),
      request(3, { messages: withResult, toolNames: ["read", "write"] }),
    ];
    const replies = new Map<number, MockReply>([
      [0, { toolCalls: [{ name: "exec", args: { command: "x" } }] }],
      [1, { text: answer }],
      [2, { text: "Summary of the conversation so far (request 2)." }],
      [3, { text: SILENT_REPLY }],
    ]);
    expect(writtenAnswers(requests, replies)).toEqual([answer]);
  });
});

describe("the budget of a turn's main prompt", () => {
  const assemble = (promptBudget: number) => ({ ts: "", op: "assemble", debt: { promptBudget } });

  it("is the largest of the turn's assembles, not the last in-turn one", () => {
    expect(turnPromptBudget([assemble(17_979), assemble(31_964), { ts: "", op: "commitTurn" }, assemble(512)])).toBe(
      31_964,
    );
    expect(turnPromptBudget([{ ts: "", op: "paydown", debt: { promptBudget: 99_999 } }])).toBeNull();
    expect(turnPromptBudget([])).toBeNull();
  });
});
