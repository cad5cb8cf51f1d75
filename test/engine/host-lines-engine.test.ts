import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/parse-config.js";
import { createEngine } from "../../src/engine/create-engine.js";
import { createLedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import { assistant, call, createTestEngine, result, user } from "../support/engine-harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe("engine on the host lines", () => {
  it("a view never begins with an assistant or tool message", async () => {
    const t = await createTestEngine();
    cleanups.push(() => t.cleanup());
    const messages = [
      call("call_a_1-x", "exec", { command: "ls" }),
      result("call_a_1-x", "exec", "a.txt"),
      user("what now?"),
      assistant("this."),
    ];
    const view = await t.engine.assemble({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      messages,
      tokenBudget: 20_000,
    });
    expect((view.messages[0] as { role: string }).role).toBe("user");
  });

  it("internal memory-flush sessions leave no state folder behind; ordinary sessions keep theirs", async () => {
    const t = await createTestEngine();
    cleanups.push(() => t.cleanup());
    const internalKey = "agent:main:internal-session-effects:0b7c";
    for (const key of [internalKey, "agent:main:chat"]) {
      await t.engine.assemble({ sessionId: key, sessionKey: key, messages: [user("remember")], tokenBudget: 20_000 });
      await t.engine.commitTurn({
        sessionId: key,
        sessionKey: key,
        advancementKey: `k-${key}`,
        messages: [user("remember"), assistant("ok")],
      });
    }
    await t.services.sessions.flush();
    expect(existsSync(t.services.sessions.dir("main", internalKey))).toBe(true);
    await t.engine.dispose();
    expect(existsSync(t.services.sessions.dir("main", internalKey))).toBe(false);
    expect(existsSync(t.services.sessions.dir("main", "agent:main:chat"))).toBe(true);
  });

  // 2026.8.2 too: its preflight threw "Preflight compaction required but failed: nothing_reducible" and ended turns 3-6
  // of reset-loop before the model.
  it.each(["2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"])(
    "on %s a preflight compaction with nothing to reduce answers in words the host reads as 'skip, run the model'",
    async (version) => {
      const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-preflight-"));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const services = createLedgerRuntime({ config: parseConfig({ stateDir: dir }) });
      const engine = createEngine(
        services,
        { config: {}, agentDir: path.join(dir, "agents", "main", "agent") },
        version,
      );
      const messages = [user("run it"), call("call_b_1-x", "exec"), result("call_b_1-x", "exec", "done")];
      await engine.assemble({ sessionId: "s", sessionKey: "agent:main:s", messages, tokenBudget: 32_000 });
      const out = await engine.compact({
        sessionId: "s",
        sessionKey: "agent:main:s",
        tokenBudget: 32_000,
        force: true,
        runtimeContext: { forceReason: "preflight_required" },
      });
      expect(out.compacted).toBe(false);
      expect(out.reason).toMatch(/^nothing_reducible: nothing to compact/);
      await engine.dispose();
    },
  );
});
