import { describe, expect, it } from "vitest";
import { summaryMessage } from "../host/messages.js";
import { alignUserTurns, renderUserTurns, USER_TURNS_HEADING, userTurnsBefore, type UserTurn } from "./user-turns.js";

const user = (text: string, timestamp = 1_700_000_000_000) => ({ role: "user", content: text, timestamp });
const assistant = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });
const conversation = (n: number) =>
  Array.from({ length: n }, (_, i) => [user(`ask ${i + 1}`), assistant(`done ${i + 1}`)]).flat();

describe("the conversation's user messages, numbered as it counts them", () => {
  it("keeps a turn's number when the host drops the list's front", () => {
    const all = conversation(6);
    const first = alignUserTurns([], all.slice(0, 8));
    expect(first.turns.map((u) => u.text)).toEqual(["ask 1", "ask 2", "ask 3", "ask 4"]);
    // The host now passes a tail from turn 3 on (2026.9.6's cut), behind a compaction summary (2026.4.24).
    const tail = [{ role: "compactionSummary", summary: "…" }, ...all.slice(4)];
    const next = alignUserTurns(first.turns, tail);
    expect(next.turns.map((u) => u.text)).toEqual(["ask 1", "ask 2", "ask 3", "ask 4", "ask 5", "ask 6"]);
    expect(next.turnAt.get(1)).toBe(3);
    expect(userTurnsBefore(next, 3).map((u) => `${u.turn}:${u.text}`)).toEqual(["1:ask 1", "2:ask 2", "3:ask 3"]);
  });

  it("continues from the first message it knows when a host opens the list with one of its own", () => {
    const known = alignUserTurns([], conversation(6)).turns;
    // 2026.9.6 rebuilt the transcript after its memory flush: a "(session bootstrap)" message, then turns 4-6.
    const rebuilt = [user("(session bootstrap)"), ...conversation(6).slice(6)];
    const next = alignUserTurns(known, rebuilt);
    expect(next.turns.map((u) => u.text)).toEqual(["ask 1", "ask 2", "ask 3", "ask 4", "ask 5", "ask 6"]);
    expect(next.turnAt.get(1)).toBe(4);
    expect(next.turnAt.has(0)).toBe(false);
  });

  it("a rewind replaces the turns after the point where the list leaves the record", () => {
    const known = alignUserTurns([], conversation(4)).turns;
    const rewound = [...conversation(2), user("ask 3, differently")];
    const next = alignUserTurns(known, rewound);
    expect(next.turns.map((u) => u.text)).toEqual(["ask 1", "ask 2", "ask 3, differently"]);
  });

  it("a list that opens with a message the record does not know, with nothing before it, is a new conversation", () => {
    const known = alignUserTurns([], conversation(4)).turns;
    const next = alignUserTurns(known, [user("brand new after /new"), assistant("ok")]);
    expect(next.turns.map((u) => u.text)).toEqual(["brand new after /new"]);
  });

  it("skips the engine's own summary message and the host's internal context", () => {
    const list = [
      summaryMessage("[context-ledger summary]\nEarlier conversation…\n[/context-ledger summary]"),
      user("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nnote\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"),
      user("the real question"),
    ];
    expect(alignUserTurns([], list).turns.map((u) => u.text)).toEqual(["the real question"]);
  });

  it("keeps each message's time, for the summary message's stamp", () => {
    const [u] = alignUserTurns([], [user("dated", 1_780_000_000_000)]).turns as [UserTurn];
    expect(u.at).toBe(1_780_000_000_000);
  });
});

describe("quoting the user's messages in a summary block", () => {
  const turns = (texts: string[]) => texts.map((text, i) => ({ turn: i + 1, text }));

  it("quotes each whole, as a JSON string, under its turn number", () => {
    const text = renderUserTurns(turns(["set the timeout to 30", 'no, "60"\nplease'])).text;
    expect(text).toBe(`${USER_TURNS_HEADING}\nTurn 1: "set the timeout to 30"\nTurn 2: "no, \\"60\\"\\nplease"`);
  });

  it("over its bound, condenses the longest first and says so with the size", () => {
    const long = "x".repeat(5_000);
    const r = renderUserTurns(turns(["short one", long, "another short"]), 1_000);
    expect(r.condensed).toBe(1);
    expect(r.text).toContain('Turn 1: "short one"');
    expect(r.text).toContain("Turn 2 (condensed from 5,000 chars): ");
    expect(r.text).toContain('Turn 3: "another short"');
    expect(r.text.length).toBeLessThanOrEqual(1_000);
  });

  it("condenses a message to what no later message repeats, so every sentence stays quoted once", () => {
    const texts = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? `Turn ${i + 1}: run the nightly report command. Note for later: the queue name is q-${i * 7}.`
        : `Turn ${i + 1}: run the nightly report command again and summarize what changed.`,
    );
    const whole = renderUserTurns(turns(texts)).text.length;
    const r = renderUserTurns(turns(texts), Math.floor(whole * 0.75));
    expect(r.text.length).toBeLessThanOrEqual(Math.floor(whole * 0.75));
    expect(r.text).not.toMatch(/left out/);
    for (let i = 0; i < 30; i += 3) expect(r.text).toContain(`Note for later: the queue name is q-${i * 7}.`);
    expect(r.text).toContain('Turn 1 (condensed from 78 chars): "… Note for later: the queue name is q-0."');
    expect(r.text).toContain('Turn 2 (condensed from 72 chars): "…"');
    expect(r.text).toContain(
      'Turn 28: "Turn 28: run the nightly report command. Note for later: the queue name is q-189."',
    );
    expect(r.text).toContain('Turn 30: "Turn 30: run the nightly report command again and summarize what changed."');
    expect(r.text.split("\n")[1]).toMatch(
      /^\(Quoted whole, these messages would pass [\d,]+ chars, their share of the prompt: a condensed/,
    );
  });

  it("keeps apart sentences that differ in a number other than the turn's own", () => {
    const again = "Set the timeout to 60 and keep the logs for a week.";
    const texts = ["Set the timeout to 30 and keep the logs for a week.", ...Array<string>(16).fill(again), "Done."];
    const whole = renderUserTurns(turns(texts)).text.length;
    const r = renderUserTurns(turns(texts), whole - 100);
    expect(r.text).not.toMatch(/left out/);
    expect(r.text).toContain('Turn 1: "Set the timeout to 30 and keep the logs for a week."');
    expect(r.text).toContain('Turn 2 (condensed from 51 chars): "…"');
    expect(r.text).toContain(`Turn 17: ${JSON.stringify(again)}`);
  });

  it("quotes a message without what the host put at its front: its date envelope, its runtime-event prompt", () => {
    const r = renderUserTurns(
      turns(["[Sat 2026-11-28 10:00 UTC] set the timeout to 30", "Continue the OpenClaw runtime event.\n\nnow 60"]),
    );
    expect(r.text).toContain('Turn 1: "set the timeout to 30"');
    expect(r.text).toContain('Turn 2: "now 60"');
  });

  it("when even short heads do not fit, leaves the oldest out under one line that says which", () => {
    const many = turns(Array.from({ length: 100 }, (_, i) => `message number ${i + 1} of the session`));
    const r = renderUserTurns(many, 800);
    expect(r.text.length).toBeLessThanOrEqual(800);
    expect(r.text).toMatch(/\nTurns 1-\d+ \(left out: \d+ older messages over the summary's share/);
    expect(r.text).toContain('Turn 100: "message number 100 of the session"');
  });
});
