import { describe, expect, it } from "vitest";
import { roleOf, toolCallIdsOf, toolResultIdOf } from "../../src/host/messages.js";
import { assistant, call, conversation, result, user } from "../support/engine-harness.js";
import { summaryOf } from "../support/view-summary.js";

/** What the suite needs from an engine under test. */
export interface ConformanceTarget {
  engine: {
    info: Record<string, unknown>;
    assemble(p: unknown): Promise<{
      messages: unknown[];
      estimatedTokens: number;
      promptAuthority?: string;
    }>;
    commitTurn(p: unknown): Promise<{ status: string }>;
    compact(p: unknown): Promise<{
      ok: boolean;
      compacted: boolean;
      reason?: string;
      result?: { tokensBefore: number; tokensAfter?: number };
    }>;
    maintain(p: unknown): Promise<{ changed: boolean; bytesFreed: number; rewrittenEntries: number }>;
    bootstrap(p: unknown): Promise<unknown>;
    afterTurn(p: unknown): Promise<void>;
    ingest(p: unknown): Promise<{ ingested: boolean }>;
    ingestBatch(p: unknown): Promise<{ ingestedCount: number }>;
    dispose(): Promise<void>;
  };
  /** A new engine on the same state (a process restart). */
  restart(): ConformanceTarget["engine"];
  /**
   * The turns the engine's durable state holds for a session key, oldest first (each with the messages it ingested).
   */
  committedTurns(sessionKey: string): Promise<{ key: string; messages: number }[]>;
  cleanup(): Promise<void>;
}

/** Checks tool pairing: every result follows its call, every call has its results. */
export function expectPaired(messages: unknown[]): void {
  const open = new Set<string>();
  for (const m of messages) {
    if (roleOf(m) === "assistant") {
      expect(open.size, "a tool call lost its result").toBe(0);
      for (const id of toolCallIdsOf(m)) open.add(id);
    } else if (roleOf(m) === "toolResult") {
      const id = toolResultIdOf(m);
      expect(id !== undefined && open.has(id), `orphan tool result ${id}`).toBe(true);
      open.delete(id as string);
    } else {
      expect(open.size, "a tool call lost its result").toBe(0);
    }
  }
  expect(open.size).toBe(0);
}

/**
 * The host contract as tests, for any engine factory: the declarations
 * 2026.9.x requires, idempotent commits across restarts, budgets, pairing,
 * degenerate input, and a truthful compact().
 */
export function describeEngineConformance(name: string, make: () => Promise<ConformanceTarget>): void {
  describe(`${name}: engine conformance`, () => {
    const session = { sessionId: "s-1", sessionKey: "agent:main:conf" };

    it("declares the durable turn semantics 2026.9.x requires, and owns compaction", async () => {
      const t = await make();
      expect(t.engine.info.transcriptSemantics).toEqual({
        currentTurnFence: "before-current-turn-entry-v1",
        turnAdvancementIdempotency: "atomic-idempotent-v1",
      });
      expect(t.engine.info.ownsCompaction).toBe(true);
      expect(t.engine.info.assemblyIsPromptAuthoritative).toBe(true);
      expect(typeof t.engine.commitTurn).toBe("function");
      await t.cleanup();
    });

    it("commitTurn is idempotent per advancementKey, also across a restart", async () => {
      const t = await make();
      const turn = { ...session, advancementKey: "k-1", messages: [user("hi"), assistant("hello")] };
      expect((await t.engine.commitTurn(turn)).status).toBe("committed");
      expect((await t.engine.commitTurn(turn)).status).toBe("duplicate");
      const again = t.restart();
      expect((await again.commitTurn(turn)).status).toBe("duplicate");
      expect((await again.commitTurn({ ...turn, advancementKey: "k-2" })).status).toBe("committed");
      await t.cleanup();
    });

    it("parallel commits of one key commit exactly once", async () => {
      const t = await make();
      const turn = { ...session, advancementKey: "k-par", messages: [user("x")] };
      const results = await Promise.all(Array.from({ length: 12 }, () => t.engine.commitTurn(turn)));
      expect(results.filter((r) => r.status === "committed")).toHaveLength(1);
      expect(results.filter((r) => r.status === "duplicate")).toHaveLength(11);
      await t.cleanup();
    });

    it("assembles within the budget, keeps tool pairs and the newest user turn", async () => {
      const t = await make();
      const messages = [...conversation(30, 3_000), user("newest question: what changed?")];
      const out = await t.engine.assemble({ ...session, messages, tokenBudget: 8_000 });
      expect(out.estimatedTokens).toBeLessThanOrEqual(8_000);
      expect(out.promptAuthority).toBe("assembled");
      expectPaired(out.messages);
      expect(out.messages.at(-1)).toEqual(messages.at(-1));
      expect(out.messages.length).toBeLessThan(messages.length);
      await t.cleanup();
    });

    it("is deterministic: the same input gives byte-identical output", async () => {
      const t = await make();
      const messages = [...conversation(20, 12_000), user("again")];
      const a = await t.engine.assemble({ ...session, sessionKey: "agent:main:det-a", messages, tokenBudget: 6_000 });
      const b = await t.engine.assemble({ ...session, sessionKey: "agent:main:det-b", messages, tokenBudget: 6_000 });
      expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
      expect(a.estimatedTokens).toBe(b.estimatedTokens);
      await t.cleanup();
    });

    it("never throws on degenerate budgets or garbage params", async () => {
      const t = await make();
      const messages = [...conversation(3, 500), user("q")];
      for (const tokenBudget of [undefined, 0, 1, -5, Number.NaN, Number.POSITIVE_INFINITY, 1e12, "100"]) {
        const out = await t.engine.assemble({ ...session, messages, tokenBudget });
        expect(Array.isArray(out.messages)).toBe(true);
        expect(Number.isFinite(out.estimatedTokens)).toBe(true);
      }
      for (const garbage of [undefined, null, 42, "x", { messages: "nope" }, { messages: [null, 3, { role: 7 }] }]) {
        await expect(t.engine.assemble(garbage)).resolves.toBeDefined();
        await expect(t.engine.compact(garbage)).resolves.toBeDefined();
        await expect(t.engine.maintain(garbage)).resolves.toBeDefined();
        await expect(t.engine.bootstrap(garbage)).resolves.toBeDefined();
        await expect(t.engine.afterTurn(garbage)).resolves.toBeUndefined();
        await expect(t.engine.ingest(garbage)).resolves.toBeDefined();
        await expect(t.engine.ingestBatch(garbage)).resolves.toBeDefined();
        await expect(t.engine.commitTurn(garbage)).resolves.toBeDefined();
      }
      await t.cleanup();
    });

    it("compact() is truthful: no view → not compacted; forced on a long session → smaller next view", async () => {
      const t = await make();
      const none = await t.engine.compact({ ...session, sessionKey: "agent:main:cold", force: true });
      expect(none.compacted).toBe(false);
      expect(none.reason).toBeTruthy();
      const messages = [...conversation(60, 1_500), user("q")];
      const before = await t.engine.assemble({ ...session, messages, tokenBudget: 12_000 });
      const res = await t.engine.compact({ ...session, force: true, tokenBudget: 12_000 });
      expect(res.compacted).toBe(true);
      expect(res.result?.tokensAfter).toBeLessThan(res.result?.tokensBefore ?? 0);
      const after = await t.engine.assemble({ ...session, messages, tokenBudget: 12_000 });
      expect(after.messages.length).toBeLessThan(before.messages.length);
      expect(summaryOf(after)).toContain("[context-ledger summary]");
      await t.cleanup();
    });

    it("afterTurn (2026.4.24 ingestion) commits once per turn", async () => {
      const t = await make();
      const messages = [user("a"), call("c1", "exec"), result("c1", "exec", "ok"), assistant("done")];
      expect(await t.committedTurns(session.sessionKey)).toEqual([]);
      await t.engine.afterTurn({ ...session, sessionFile: "/tmp/x.jsonl", messages, prePromptMessageCount: 0 });
      const once = await t.committedTurns(session.sessionKey);
      expect(once).toHaveLength(1);
      expect(once[0]?.messages).toBe(4);
      // The host calls afterTurn again with the same transcript (a retry, the next tool-loop step): no second commit.
      await t.engine.afterTurn({ ...session, sessionFile: "/tmp/x.jsonl", messages, prePromptMessageCount: 0 });
      expect(await t.committedTurns(session.sessionKey)).toEqual(once);
      // Across a restart too.
      await t.restart().afterTurn({ ...session, sessionFile: "/tmp/x.jsonl", messages, prePromptMessageCount: 0 });
      expect(await t.committedTurns(session.sessionKey)).toEqual(once);
      // The next turn's messages commit as one more turn, only what is new.
      const next = [...messages, user("b"), assistant("done again")];
      await t.engine.afterTurn({ ...session, sessionFile: "/tmp/x.jsonl", messages: next, prePromptMessageCount: 4 });
      const twice = await t.committedTurns(session.sessionKey);
      expect(twice).toHaveLength(2);
      expect(twice[1]?.messages).toBe(2);
      // ingestBatch is a separate path (used only without afterTurn): it dedupes its own batches.
      const dup = await t.engine.ingestBatch({ ...session, messages });
      const dup2 = await t.engine.ingestBatch({ ...session, messages });
      expect(dup.ingestedCount).toBe(4);
      expect(dup2.ingestedCount).toBe(0);
      await t.cleanup();
    });
  });
}
