import { afterEach, describe, expect, it } from "vitest";
import { isLedgerCommand } from "../../src/host/messages.js";
import { assistant, call, createTestEngine, result, user } from "../support/engine-harness.js";

// A reply as 2026.9.6 stores a plugin command's answer in the transcript (recorded from a real host session).
const injected = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-responses",
  provider: "openclaw",
  model: "gateway-injected",
  stopReason: "stop",
  timestamp: 1,
});

const texts = (messages: unknown[]) => messages.map((m) => JSON.stringify(m));

describe("operator exchanges stay out of the model's prompt", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => cleanup?.());

  async function assemble(messages: unknown[]) {
    const t = await createTestEngine();
    cleanup = t.cleanup;
    const out = await t.engine.assemble({
      sessionId: "s-op",
      sessionKey: "agent:main:op",
      messages,
      tokenBudget: 32_000,
    });
    return out.messages;
  }

  it("drops /ledger commands and their replies, keeps every other turn in order", async () => {
    const turn1 = [user("run the build"), call("c1", "exec"), result("c1", "exec", "ok"), assistant("Built.")];
    const commands = [
      user("/ledger status"),
      injected("context-ledger · agent main: 2 stored outputs · Prompt 1,200 of 32,000 budget tokens"),
      user("[Wed 2026-11-25 03:16 UTC] /ledger fetch ledger:v1:sha256:" + "a".repeat(64) + " lines 1-3"),
      injected("[context-ledger fetch ledger:v1:sha256:" + "a".repeat(64) + "] secret-ish output"),
    ];
    const turn2 = [user("and the tests?")];
    const out = await assemble([...turn1, ...commands, ...turn2]);
    const body = texts(out).join("\n");
    expect(body).not.toContain("/ledger");
    expect(body).not.toContain("stored outputs");
    expect(body).not.toContain("context-ledger fetch");
    expect(out.map((m) => (m as { role: string }).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
    ]);
  });

  it("drops what the host marks excludeFromContext; a message that only mentions /ledger stays", async () => {
    const out = await assemble([
      user("hello"),
      { ...user("/status"), excludeFromContext: true },
      { ...injected("OpenClaw status: ok"), excludeFromContext: true },
      assistant("Hi."),
      user("what does /ledger status show?"),
    ]);
    const body = texts(out).join("\n");
    expect(body).not.toContain("OpenClaw status");
    expect(body).toContain("what does /ledger status show?");
  });

  it("commands merged into one user message (as 2026.9.6 hands them), last in the history, are dropped", async () => {
    const merged = {
      role: "user",
      content: [
        { type: "text", text: "[Wed 2026-11-25 03:43 UTC] /ledger status" },
        { type: "text", text: "/ledger view" },
        { type: "text", text: "/ledger fetch ledger:v1:sha256:" + "b".repeat(64) + " lines 2-4" },
      ],
      timestamp: 2,
    };
    const out = await assemble([user("hi"), assistant("Hello."), merged]);
    expect(texts(out).join("\n")).not.toContain("/ledger");
    expect(out).toHaveLength(2);
    // A genuine message merged with a command keeps its own text, and the model's answer after it stays.
    const mixed = {
      ...merged,
      content: [
        { type: "text", text: "/ledger view" },
        { type: "text", text: "and now?" },
      ],
    };
    const kept = await assemble([user("hi"), assistant("Hello."), mixed, assistant("Now this.")]);
    expect(texts(kept).join("\n")).not.toContain("/ledger");
    expect(texts(kept).join("\n")).toContain("and now?");
    expect(texts(kept).join("\n")).toContain("Now this.");
  });

  it("a model turn after a command is kept whole", async () => {
    const after = await assemble([
      user("/ledger view"),
      injected("What the model saw · turn 1"),
      user("go on"),
      call("c2", "exec"),
      result("c2", "exec", "done"),
      assistant("Done."),
      user("next"),
    ]);
    expect(texts(after).join("\n")).not.toContain("What the model saw");
    expect(after).toHaveLength(5);
  });

  it("recognises the command only at the start of a user message", () => {
    expect(isLedgerCommand(user("/ledger"))).toBe(true);
    expect(isLedgerCommand(user("  /ledger view"))).toBe(true);
    expect(isLedgerCommand(user("/ledgers"))).toBe(false);
    expect(isLedgerCommand(user("see /ledger view"))).toBe(false);
    expect(isLedgerCommand(assistant("/ledger view"))).toBe(false);
  });
});
