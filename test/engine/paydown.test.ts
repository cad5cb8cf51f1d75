import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostPromptBudget } from "../../src/host/host-budget.js";
import { HOST_LINES } from "../../src/host/host-lines.js";
import { estimateRawTokens } from "../../src/host/raw-tally.js";
import { readActiveBranch } from "../../src/maintenance/transcript-jsonl.js";
import { offRampLine, parseStubHandle } from "../../src/results/stub.js";
import { bloatedSession } from "../cli/cli-fixtures.js";
import { createTestEngine } from "../support/engine-harness.js";
import { useSharedTempDir, useTempDir } from "../support/temp-dir.js";

describe("maintain(): debt paydown through the host's rewrite", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  let file: string;
  const session = bloatedSession({ turns: 6, outputChars: 150_000, answerChars: 12_000 });
  const jsonlDir = useSharedTempDir("ledger-jsonl-");
  const tmp = useTempDir("ledger-jsonl-pending-");
  beforeAll(async () => {
    t = await createTestEngine({}, "2026.4"); // 2026.4.24: factory without argument
    file = path.join(jsonlDir(), `${session.sessionId}.jsonl`);
    await writeFile(file, session.text);
  });
  afterAll(async () => t.cleanup());

  it("2026.4.24 budget: the precheck's admitted budget, not the whole window", () => {
    expect(hostPromptBudget(HOST_LINES["2026.4"], 32_000)).toBe(10_000); // (32000 - 20000) / 1.2
    expect(hostPromptBudget(HOST_LINES["2026.4"], 200_000)).toBe(150_000);
    expect(hostPromptBudget(HOST_LINES["2026.4"], 10_000)).toBe(4_166); // reserve capped: min prompt 5000
    expect(hostPromptBudget(HOST_LINES["2026.9"], 32_000)).toBe(32_000);
  });

  it("stashes and verifies every oversized entry, rewrites it into a stub, and reports honestly", async () => {
    const entries = await readActiveBranch(file);
    const rawBefore = entries.reduce((s, e) => s + estimateRawTokens(e.message), 0);
    const messages = entries.map((e) => e.message);
    await t.engine.assemble({
      sessionId: session.sessionId,
      sessionKey: "agent:main:jsonl",
      messages,
      tokenBudget: 32_000,
    });
    const requests: { entryId: string; message: Record<string, unknown> }[][] = [];
    const rewriteTranscriptEntries = async (req: {
      replacements: { entryId: string; message: Record<string, unknown> }[];
    }) => {
      requests.push(req.replacements);
      const freed = req.replacements.reduce(
        (s, r) =>
          s +
          JSON.stringify(entries.find((e) => e.id === r.entryId)?.message).length -
          JSON.stringify(r.message).length,
        0,
      );
      return { changed: true, bytesFreed: freed, rewrittenEntries: req.replacements.length };
    };
    const result = await t.engine.maintain({
      sessionId: session.sessionId,
      sessionKey: "agent:main:jsonl",
      sessionFile: file,
      runtimeContext: { rewriteTranscriptEntries },
    });
    expect(result.changed).toBe(true);
    expect(requests).toHaveLength(1);
    const replacements = requests[0] ?? [];
    // The 6 tool results and nothing else: the answers and the user's messages are the conversation, whatever the debt.
    expect(replacements.map((r) => r.message.role)).toEqual(session.tools.map(() => "toolResult"));
    expect(result.rewrittenEntries).toBe(replacements.length);
    expect(result.bytesFreed).toBeGreaterThan(1_500_000);
    const byId = new Map(replacements.map((r) => [r.entryId, r.message]));
    const rawAfter = entries.reduce((s, e) => s + estimateRawTokens(byId.get(e.id) ?? e.message), 0);
    expect(rawAfter).toBeLessThan(rawBefore / 10);
    // Lossless: each stub's handle fetches the byte-exact original (the full details.aggregated for exec).
    const store = t.services.store("main");
    for (const tool of session.tools) {
      const stub = byId.get(tool.entryId) as { content: { text: string }[]; details?: Record<string, unknown> };
      const handle = parseStubHandle(stub.content[0]?.text);
      expect(handle).toBeDefined();
      expect((await store.read(handle as string)).toString("utf8")).toBe(tool.aggregated);
      expect(stub.details?.aggregated).toBeUndefined();
      expect(stub.details?.exitCode).toBe(0);
      // It outlives the plugin: it says how to get the output back without the ledger tools.
      expect(stub.content[0]?.text).toContain(offRampLine(handle as string));
    }
  });

  it("where the host sizes the assembled view, not the raw transcript (every line after 2026.4.24), the answers the user read stay", async () => {
    const t6 = await createTestEngine({}, "2026.9");
    const entries = await readActiveBranch(file);
    const requests: { entryId: string; message: Record<string, unknown> }[][] = [];
    const rewriteTranscriptEntries = async (req: {
      replacements: { entryId: string; message: Record<string, unknown> }[];
    }) => {
      requests.push(req.replacements);
      return { changed: true, bytesFreed: 1, rewrittenEntries: req.replacements.length };
    };
    await t6.engine.assemble({
      sessionId: session.sessionId,
      sessionKey: "agent:main:jsonl6",
      messages: entries.map((e) => e.message),
      tokenBudget: 32_000,
    });
    const result = await t6.engine.maintain({
      sessionId: session.sessionId,
      sessionKey: "agent:main:jsonl6",
      sessionFile: file,
      runtimeContext: { rewriteTranscriptEntries },
    });
    expect(result.changed).toBe(true);
    expect(requests.flat().map((r) => r.message.role)).toEqual(session.tools.map(() => "toolResult"));
  });

  it("before a turn the host has just stored (its user message unanswered) it waits: the rewrite would race the turn", async () => {
    const pending = path.join(tmp(), `${session.sessionId}.jsonl`);
    const last = (await readActiveBranch(file)).at(-1);
    const message = { role: "user", content: [{ type: "text", text: "and now the tests?" }], timestamp: 1 };
    const line = {
      type: "message",
      id: "e9999",
      parentId: last?.id ?? null,
      timestamp: "2026-04-25T11:00:00.000Z",
      message,
    };
    await writeFile(pending, `${session.text.trimEnd()}\n${JSON.stringify(line)}\n`);
    const calls: unknown[] = [];
    const maintain = (sessionFile: string) =>
      t.engine.maintain({
        sessionId: session.sessionId,
        sessionKey: "agent:main:jsonl-pending",
        sessionFile,
        runtimeContext: { rewriteTranscriptEntries: async (r: unknown) => (calls.push(r), { changed: false }) },
      });
    expect(await maintain(pending)).toEqual({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
      reason: "turn_in_flight",
    });
    expect(calls).toEqual([]);
    // The same history once answered is paid down.
    await maintain(file);
    expect(calls).toHaveLength(1);
  });

  it("without the host's rewrite capability or entry ids it changes nothing and says why", async () => {
    const a = await t.engine.maintain({ sessionId: "x", sessionKey: "agent:main:x", sessionFile: file });
    expect(a).toEqual({ changed: false, bytesFreed: 0, rewrittenEntries: 0, reason: "rewrite_unavailable" });
    const b = await t.engine.maintain({
      sessionId: "x",
      sessionKey: "agent:main:x",
      sessionFile: "agent:main:x",
      runtimeContext: { rewriteTranscriptEntries: async () => ({ changed: true }) },
    });
    expect(b.reason).toBe("entry_ids_unavailable");
  });

  it("honours an aborted signal without touching the transcript", async () => {
    const controller = new AbortController();
    controller.abort();
    let called = false;
    const res = await t.engine.maintain({
      sessionId: session.sessionId,
      sessionKey: "agent:main:jsonl2",
      sessionFile: file,
      abortSignal: controller.signal,
      runtimeContext: { rewriteTranscriptEntries: async () => ((called = true), { changed: true }) },
    });
    expect(called).toBe(false);
    expect(res.changed).toBe(false);
  });
});

describe("afterTurn on 2026.4.24: called after every tool-loop step with the growing transcript", () => {
  it("ingests each message once", async () => {
    const t = await createTestEngine({}, "2026.4");
    const { user, call, result, assistant } = await import("../support/engine-harness.js");
    const base = [user("a"), assistant("b")];
    const step1 = [...base, user("run"), call("c1", "exec")];
    const step2 = [...step1, result("c1", "exec", "ok")];
    const step3 = [...step2, assistant("done")];
    const s = {
      sessionId: "loop",
      sessionKey: "agent:main:loop",
      sessionFile: "/tmp/loop.jsonl",
      prePromptMessageCount: 2,
    };
    await t.engine.afterTurn({ ...s, messages: step1 });
    await t.engine.afterTurn({ ...s, messages: step2 });
    await t.engine.afterTurn({ ...s, messages: step3 });
    await t.engine.afterTurn({ ...s, messages: step3 });
    const state = await t.services.sessions.read("main", "agent:main:loop");
    expect(state.recentTurns.map((r) => r.messages)).toEqual([2, 1, 1]);
    expect(state.ingested).toEqual({ sessionId: "loop", count: 6 });
    await t.cleanup();
  });
});
