import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../../src/tokens/count-message.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";

describe("limits: a refused stash never leaves an unfetchable handle in the prompt", () => {
  it("over limits.maxSessionBytes: outputs stay inline, the budget still holds by exact count, the reason is logged", async () => {
    const t = await createTestEngine({ limits: { maxSessionBytes: 65_536 } });
    const messages = [
      user("go"),
      call("c1", "exec"),
      result("c1", "exec", logText(100_000)),
      assistant("done"),
      user("and?"),
    ];
    const view = await t.engine.assemble({
      sessionId: "cap",
      sessionKey: "agent:main:cap",
      messages,
      tokenBudget: 60_000,
    });
    expect(JSON.stringify(view.messages)).not.toContain("ledger:v1:sha256:");
    expect(view.estimatedTokens).toBeLessThanOrEqual(60_000);
    const counter = createTokenCounter({ encoding: "o200k_base" });
    expect(counter.countMessages(view.messages)).toBe(view.estimatedTokens);
    expect(t.logs.some((l) => l.includes("offload refused") && l.includes("maxSessionBytes"))).toBe(true);
    await t.cleanup();
  });

  it("within the allowance: the same output is offloaded and its handle fetches the original", async () => {
    const t = await createTestEngine();
    const output = logText(100_000);
    const messages = [user("go"), call("c1", "exec"), result("c1", "exec", output), assistant("done"), user("and?")];
    const view = await t.engine.assemble({
      sessionId: "ok",
      sessionKey: "agent:main:ok",
      messages,
      tokenBudget: 60_000,
    });
    const handle = /ledger:v1:sha256:[0-9a-f]{64}/.exec(JSON.stringify(view.messages))?.[0];
    expect(handle).toBeDefined();
    expect(await t.services.store("main").readText(handle as string)).toBe(output);
    await t.cleanup();
  });
});

describe("an oversized newest user turn is reduced losslessly, never dropped", () => {
  it("a 200,000-char paste under a 2,000-token budget: stubs with handles, the turn stays last, the budget holds", async () => {
    const t = await createTestEngine();
    const paste = logText(200_000, 9);
    const messages = [
      user("hello"),
      assistant("hi"),
      {
        role: "user",
        content: [
          { type: "text", text: "Please review this log:" },
          { type: "text", text: paste },
        ],
        timestamp: 1,
      },
    ];
    const view = await t.engine.assemble({
      sessionId: "paste",
      sessionKey: "agent:main:paste",
      messages,
      tokenBudget: 2_000,
    });
    expect(view.estimatedTokens).toBeLessThanOrEqual(2_000);
    const last = view.messages.at(-1) as { role: string; content: { text: string }[] };
    expect(last.role).toBe("user");
    expect(last.content[0]?.text).toBe("Please review this log:");
    const handle = /ledger:v1:sha256:[0-9a-f]{64}/.exec(last.content[1]?.text ?? "")?.[0] as string;
    expect(await t.services.store("main").readText(handle)).toBe(paste);
    await t.cleanup();
  });
});
