import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assistant, createTestEngine, user } from "../support/engine-harness.js";
import { conversationOf, summaryOf } from "../support/view-summary.js";

async function listFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of await fsp.readdir(dir, { recursive: true })) {
    const file = path.join(dir, String(name));
    const st = await fsp.stat(file);
    if (st.isFile() && !file.endsWith(".lock") && !file.includes(`${path.sep}logs${path.sep}`))
      out.set(file, (await fsp.readFile(file)).toString("base64"));
  }
  return out;
}

describe("compact() that answers not_smaller", () => {
  it("saves no summary and seals no checkpoint (the state on disk is unchanged)", async () => {
    const t = await createTestEngine({ summary: { maxInjectedChars: 4_000 } });
    const s = { sessionId: "s-ns", sessionKey: "agent:main:not-smaller" };
    // Many one-word turns: whatever leaves the window costs less than the summary lines that would replace it.
    const messages: unknown[] = [];
    for (let i = 0; i < 60; i++) messages.push(user(`q${i}`), assistant(`a${i}`));
    await t.engine.assemble({ ...s, messages, tokenBudget: 3_000 });
    await t.services.sessions.flush();
    // assemble also records what `context-ledger view` shows, in the background: settle it before the snapshot.
    await t.services.views.flush();
    const before = await listFiles(t.dir);
    const artifactsBefore: string[] = [];
    for await (const m of t.services.store("main").list()) artifactsBefore.push(m.handle);
    const r = (await t.engine.compact({ ...s, force: true, tokenBudget: 3_000 })) as {
      compacted: boolean;
      reason?: string;
    };
    // 2026.9 (the harness's host) also gets the words its preflight reads as a skip.
    expect(r).toMatchObject({
      compacted: false,
      reason: expect.stringMatching(/^not_smaller(: nothing to compact|$)/),
    });
    const artifactsAfter: string[] = [];
    for await (const m of t.services.store("main").list()) artifactsAfter.push(m.handle);
    expect(artifactsAfter).toEqual(artifactsBefore);
    const after = await listFiles(t.dir);
    const changed = [...after.keys()].filter((f) => before.get(f) !== after.get(f) && !f.endsWith("state.json"));
    expect(changed).toEqual([]);
    await t.cleanup();
  });
});

describe("a forced compact() of a window already under the refill share", () => {
  it("keeps only the newest turn, and the next view carries the summary (2026.9.6's manual sessions.compact)", async () => {
    const t = await createTestEngine();
    const s = { sessionId: "s-small", sessionKey: "agent:main:small-window" };
    const messages: unknown[] = [];
    for (let i = 0; i < 5; i++)
      messages.push(
        user(`Question ${i}: what does shard ${i} report?`),
        assistant(`Shard ${i} reports ${"fine ".repeat(1_400)}`),
      );
    // A small budget plans a window of the newest turns; the host then compacts with its largest budget.
    const view = await t.engine.assemble({ ...s, messages, tokenBudget: 5_000 });
    expect(conversationOf(view)).toHaveLength(4);
    // A host-required preflight finds a window that fits: the turn goes on as is ("nothing to compact").
    const preflight = (await t.engine.compact({
      ...s,
      force: true,
      tokenBudget: 30_000,
      compactionTarget: "budget",
      runtimeContext: { forceReason: "preflight_required" },
    })) as { compacted: boolean; reason?: string };
    expect(preflight.compacted).toBe(false);
    expect(preflight.reason).toContain("nothing to compact");
    // The user asked for it: 2026.9.6's sessions.compact passes compactionTarget "threshold" and forceReason "manual".
    const r = (await t.engine.compact({
      ...s,
      force: true,
      tokenBudget: 30_000,
      compactionTarget: "threshold",
      runtimeContext: { forceReason: "manual" },
    })) as { compacted: boolean; reason?: string };
    expect(r).toMatchObject({ compacted: true });
    const next = await t.engine.assemble({
      ...s,
      messages: [...messages, user("Question 5: and now?")],
      tokenBudget: 5_000,
    });
    expect(summaryOf(next)).toContain("[context-ledger summary]");
    expect(conversationOf(next).length).toBeLessThan(conversationOf(view).length + 1);
    await t.cleanup();
  });
});

describe("a compact() the host requires before the session's first assemble", () => {
  it("says there is nothing to compact, and the turn's assemble then plans the view under the budget", async () => {
    // 2026.9.6 after a gateway restart (or when the engine adopts a session another engine built) runs its preflight
    // compaction before any assemble of this process, when the session's last prompt neared the window.
    const t = await createTestEngine();
    const s = { sessionId: "s-restart", sessionKey: "agent:main:restarted" };
    const preflight = (await t.engine.compact({
      ...s,
      force: true,
      tokenBudget: 20_000,
      compactionTarget: "budget",
      runtimeContext: { forceReason: "preflight_required" },
    })) as { ok: boolean; compacted: boolean; reason?: string };
    // The host reads "nothing to compact" with ok as a skip and runs the model; any other reason fails every turn.
    expect(preflight).toMatchObject({ ok: true, compacted: false });
    expect(preflight.reason).toMatch(/^no_assembled_view: nothing to compact/);
    const messages: unknown[] = [];
    for (let i = 0; i < 30; i++) messages.push(user(`Question ${i}: ${"detail ".repeat(900)}`), assistant(`a${i}`));
    const view = await t.engine.assemble({ ...s, messages, tokenBudget: 20_000 });
    expect(view.estimatedTokens).toBeLessThanOrEqual(20_000);
    expect(view.messages.length).toBeLessThan(messages.length);
    await t.cleanup();
  });
});
