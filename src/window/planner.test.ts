import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  fingerprintMessage,
  HOST_INTERNAL_CONTEXT_PREFIX,
  isGenuineUserMessage,
  roleOf,
  toolCallIdsOf,
  toolResultIdOf,
} from "../host/messages.js";
import { planWindow } from "./planner.js";

type Msg = Record<string, unknown>;

// Turns: a user message, then optional tool rounds (one call message, its results), then an answer;
// sometimes a broken round (orphan result, call without result) to test exclusion.
const turnArb = fc.record({
  userLen: fc.integer({ min: 1, max: 400 }),
  rounds: fc.array(fc.record({ calls: fc.integer({ min: 1, max: 3 }), resultLen: fc.integer({ min: 0, max: 3000 }) }), {
    maxLength: 3,
  }),
  answerLen: fc.integer({ min: 0, max: 600 }),
  broken: fc.constantFrom("none", "none", "none", "orphan", "unanswered"),
  image: fc.boolean(),
});

type Turn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never;

function build(turns: Turn[]): Msg[] {
  const out: Msg[] = [];
  let id = 0;
  for (const t of turns) {
    out.push({
      role: "user",
      content: t.image
        ? [
            { type: "text", text: "u".repeat(t.userLen) },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ]
        : "u".repeat(t.userLen),
    });
    for (const r of t.rounds) {
      const ids = Array.from({ length: r.calls }, () => `c${id++}`);
      out.push({
        role: "assistant",
        content: ids.map((cid) => ({ type: "toolCall", id: cid, name: "exec", arguments: {} })),
      });
      for (const cid of ids)
        out.push({
          role: "toolResult",
          toolCallId: cid,
          toolName: "exec",
          content: [{ type: "text", text: "r".repeat(r.resultLen) }],
        });
    }
    if (t.broken === "orphan")
      out.push({ role: "toolResult", toolCallId: `orphan${id++}`, toolName: "exec", content: [] });
    if (t.broken === "unanswered")
      out.push({ role: "assistant", content: [{ type: "toolCall", id: `u${id++}`, name: "exec", arguments: {} }] });
    out.push({ role: "assistant", content: [{ type: "text", text: "a".repeat(t.answerLen) }] });
  }
  return out;
}

const cost = (m: unknown) => 4 + Math.ceil(JSON.stringify(m).length / 4);

function plan(messages: Msg[], budget: number, previous?: { start: number; anchor: string } | null) {
  return planWindow({
    messages,
    budget,
    count: (i) => cost(messages[i]),
    fingerprint: (i) => fingerprintMessage(messages[i]),
    previous,
  });
}

function paired(kept: unknown[]): boolean {
  const open = new Set<string>();
  for (const m of kept) {
    if (roleOf(m) === "toolResult") {
      const id = toolResultIdOf(m);
      if (!id || !open.delete(id)) return false;
    } else {
      if (open.size > 0) return false;
      for (const cid of toolCallIdsOf(m)) open.add(cid);
    }
  }
  return open.size === 0;
}

describe("planWindow invariants (property-based)", () => {
  const input = fc.record({
    turns: fc.array(turnArb, { minLength: 1, maxLength: 25 }),
    budget: fc.integer({ min: 200, max: 20_000 }),
  });

  it("never exceeds the budget unless the newest user turn alone does, keeps pairs, order and the newest user turn", () => {
    fc.assert(
      fc.property(input, ({ turns, budget }) => {
        const messages = build(turns);
        const p = plan(messages, budget);
        const kept = p.kept.map((i) => messages[i]);
        const total = p.kept.reduce((s, i) => s + cost(messages[i]), 0);
        expect(total).toBe(p.tokens);
        if (!p.overBudget) expect(p.tokens).toBeLessThanOrEqual(budget);
        expect(paired(kept)).toBe(true);
        expect([...p.kept].sort((a, b) => a - b)).toEqual(p.kept);
        const newest = messages.findLastIndex((m) => isGenuineUserMessage(m));
        expect(p.kept).toContain(newest);
      }),
      { numRuns: 300 },
    );
  });

  it("opens every window with a user message, at any budget", () => {
    fc.assert(
      fc.property(input, ({ turns, budget }) => {
        const messages = build(turns);
        const p = plan(messages, budget);
        expect(p.kept.length).toBeGreaterThan(0);
        expect(roleOf(messages[p.kept[0]!])).toBe("user");
      }),
      { numRuns: 300 },
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(input, ({ turns, budget }) => {
        const messages = build(turns);
        expect(plan(messages, budget)).toEqual(plan(structuredClone(messages), budget));
      }),
      { numRuns: 100 },
    );
  });

  it("is append-stable: with the previous anchor, a turn that fits only extends the window", () => {
    fc.assert(
      fc.property(input, turnArb, ({ turns, budget }, extra) => {
        const messages = build(turns);
        const first = plan(messages, budget);
        if (first.kept.length === 0 || first.reason === "mandatory-only") return;
        const next = [...messages, ...build([extra])];
        const anchor = {
          start: first.start,
          anchor: fingerprintMessage(messages[first.start]),
          resume: first.resume,
          resumeAnchor: fingerprintMessage(messages[first.resume]),
        };
        const second = plan(next, budget, anchor);
        if (second.reason === "stable") {
          expect(second.kept.slice(0, first.kept.length)).toEqual(first.kept);
        } else {
          // A re-plan happens only when the extended window no longer fits.
          const extended = first.tokens + next.slice(messages.length).reduce((s, m) => s + cost(m), 0);
          expect(extended).toBeGreaterThan(budget);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("fills at least 90% of the budget after a re-plan when the history is larger and made of small units", () => {
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 300 }), fc.integer({ min: 2_000, max: 20_000 }), (n, budget) => {
        const messages: Msg[] = [];
        for (let i = 0; i < n; i++)
          messages.push({
            role: i % 2 ? "assistant" : "user",
            content: i % 2 ? [{ type: "text", text: "x".repeat(150) }] : "y".repeat(150),
          });
        const total = messages.reduce((s, m) => s + cost(m), 0);
        const p = plan(messages, budget);
        if (total > budget) expect(p.tokens).toBeGreaterThanOrEqual(0.9 * budget - 100);
      }),
    );
  });

  it("excludes orphan results and unanswered calls", () => {
    const messages = build([
      { userLen: 5, rounds: [], answerLen: 5, broken: "orphan", image: false },
      { userLen: 5, rounds: [], answerLen: 5, broken: "unanswered", image: false },
    ]);
    const p = plan(messages, 100_000);
    expect(p.excluded).toHaveLength(2);
    expect(paired(p.kept.map((i) => messages[i]))).toBe(true);
  });

  it("without a genuine user message, still opens with a user message: the first kept one, else the newest before", () => {
    const carrier = { role: "user", content: `${HOST_INTERNAL_CONTEXT_PREFIX}\nsubagent result` };
    const call = (id: string) => ({
      role: "assistant",
      content: [{ type: "toolCall", id, name: "exec", arguments: {} }],
    });
    const result = (id: string) => ({ role: "toolResult", toolCallId: id, content: [{ type: "text", text: "r" }] });
    const messages: Msg[] = [carrier, { role: "assistant", content: "a".repeat(400) }, call("c1"), result("c1")];
    // The budget keeps only the tool round: the carrier before it is put back in front.
    const small = plan(messages, cost(messages[2]) + cost(messages[3]) + 1);
    expect(small.kept).toEqual([0, 2, 3]);
    expect(small.tokens).toBe([0, 2, 3].reduce((t, i) => t + cost(messages[i]), 0));
    // The whole history fits: it already opens with the carrier.
    expect(plan(messages, 100_000).kept).toEqual([0, 1, 2, 3]);
  });

  it("a re-plan that keeps no turn opens an empty window at the list's end, and the turns appended after it extend it", () => {
    fc.assert(
      fc.property(input, fc.array(turnArb, { minLength: 1, maxLength: 3 }), ({ turns, budget }, extra) => {
        const messages = build(turns);
        const empty = planWindow({
          messages,
          budget,
          count: (i) => cost(messages[i]),
          fingerprint: (i) => fingerprintMessage(messages[i]),
          keepNoTurn: true,
        });
        expect(empty).toMatchObject({ kept: [], start: messages.length, tokens: 0, replanned: true });
        const next = [...messages, ...build(extra)];
        const anchor = { start: messages.length, anchor: "", before: fingerprintMessage(messages.at(-1)) };
        const second = plan(next, budget, anchor);
        const appended = next.slice(messages.length).reduce((s, m) => s + cost(m), 0);
        if (appended <= budget && !extra.some((t) => t.broken !== "none")) {
          expect(second.reason).toBe("stable");
          expect(second.start).toBe(messages.length);
          expect(second.kept).toEqual(next.map((_, i) => i).slice(messages.length));
        } else if (second.reason === "stable") {
          expect(second.tokens).toBeLessThanOrEqual(budget);
        }
        // The message the empty window followed was rewritten: it no longer stands.
        const rewritten = [...messages.slice(0, -1), { role: "assistant", content: "rewritten" }, ...build(extra)];
        expect(plan(rewritten, budget, anchor).reason).not.toBe("stable");
      }),
      { numRuns: 200 },
    );
  });
});
