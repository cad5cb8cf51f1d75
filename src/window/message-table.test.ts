import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HOST_INTERNAL_CONTEXT_PREFIX, isGenuineUserMessage } from "../host/messages.js";
import { createMessageTable, type MessageForms } from "./message-table.js";

type Msg = { role: string; content: string };

const messageArb = fc.oneof(
  fc.string({ maxLength: 30 }).map((t): Msg => ({ role: "user", content: t })),
  fc.constant<Msg>({ role: "user", content: `${HOST_INTERNAL_CONTEXT_PREFIX} data` }),
  fc.string({ maxLength: 30 }).map((t): Msg => ({ role: "assistant", content: t })),
);

/** Forms that count their own calls: the cleared form is the text cut to its first 3 chars. */
function countingForms(): MessageForms & { calls: { carried: number; tokens: number; charge: number } } {
  const calls = { carried: 0, tokens: 0, charge: 0 };
  return {
    calls,
    carried(index, cleared) {
      calls.carried++;
      return cleared ? { cleared: index } : { kept: index };
    },
    tokens(message) {
      calls.tokens++;
      return "cleared" in (message as object) ? 1 : 10;
    },
    hostChars: (message) => JSON.stringify(message).length,
    charge(exactTokens) {
      calls.charge++;
      return exactTokens * 2;
    },
  };
}

describe("the message table of one assembly", () => {
  it("finds where each of the newest turns opens, as a walk back over genuine user messages would", () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (messages, turns) => {
        const users = messages.flatMap((m, i) => (isGenuineUserMessage(m) ? [i] : [])).reverse();
        const table = createMessageTable(messages, countingForms());
        expect(table.newestUser).toBe(users[0] ?? -1);
        expect(table.turnStart(turns)).toBe(users[turns - 1] ?? 0);
      }),
      { numRuns: 300 },
    );
  });

  it("pins the newest user message and the host's compaction summary at the head, nothing else", () => {
    const messages = [
      { role: "compactionSummary", summary: "earlier turns" },
      { role: "user", content: "first" },
      { role: "assistant", content: "answer" },
      { role: "user", content: "second" },
      { role: "assistant", content: "answer" },
    ];
    const table = createMessageTable(messages, countingForms());
    expect(messages.map((_, i) => table.pinned(i))).toEqual([true, false, false, true, false]);
  });

  it("shapes, counts and charges each message once per form, however many steps read it", () => {
    const forms = countingForms();
    const table = createMessageTable(
      Array.from({ length: 5 }, (_, i) => ({ role: "assistant", content: `m${i}` })),
      forms,
    );
    for (let pass = 0; pass < 3; pass++) {
      for (let i = 0; i < 5; i++) {
        // clearBefore 2: messages 0 and 1 are read cleared, 2 to 4 as shaped; -1 reads every one as shaped.
        table.cost(i, 2);
        table.tokens(i, 2);
        table.carried(i, -1);
      }
    }
    expect(forms.calls).toEqual({ carried: 7, tokens: 7, charge: 5 });
    expect([0, 1, 2].map((i) => table.cost(i, 2))).toEqual([2, 2, 20]);
    expect(table.carried(0, 2)).toEqual({ cleared: 0 });
    expect(table.carried(0, -1)).toEqual({ kept: 0 });
  });
});
