/**
 * `/ledger fetch` is read by whoever can type in the chat: it shows only the chat's own
 * session's outputs (unless the operator opts in), redacted over the whole output before
 * any slice is cut, and never another agent's store when the chat names no agent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runChatCommand } from "../../src/chat/ledger-command.js";
import { findHandles } from "../../src/artifacts/index.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";

const SECRET = "sk-proj-Zx8fQ2mN7vL4kR9tW3yB6cD1eH5jG0aS";

async function sessionWithSecretOutput(config: Record<string, unknown> = {}) {
  const t = await createTestEngine(config);
  const sessionKey = "agent:main:chat-secret";
  // The secret sits across what a naive 3,500-char cut would split: line 40 of the output.
  const lines = logText(60_000, 3).split("\n");
  lines[39] = `export OPENAI_API_KEY=${SECRET}`;
  const output = lines.join("\n");
  const messages = [user("Turn 1: run it"), call("c1", "exec", { command: "env" }), result("c1", "exec", output)];
  const view = (await t.engine.assemble({
    sessionId: "s1",
    sessionKey,
    messages: [...messages, assistant("ok"), user("next")],
    tokenBudget: 16_000,
  })) as {
    messages: { role: string; content: { text?: string }[] }[];
  };
  await t.engine.dispose();
  const stub = view.messages.find((m) => m.role === "toolResult")?.content[0]?.text ?? "";
  const handle = findHandles(stub)[0] as string;
  expect(handle).toBeDefined();
  return { t, sessionKey, handle };
}

describe("/ledger fetch in a chat", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => cleanup?.());

  it("redacts a secret in the lines it shows, and the stored original keeps it", async () => {
    const { t, sessionKey, handle } = await sessionWithSecretOutput();
    cleanup = () => t.cleanup();
    const shown = await runChatCommand(t.services, {
      agentId: "main",
      sessionKey,
      args: `fetch ${handle} lines 38-41`,
    });
    expect(shown.text).toMatch(/^\[context-ledger fetch /);
    expect(shown.text).toContain("OPENAI_API_KEY=");
    expect(shown.text).not.toContain(SECRET);
    expect(shown.text).not.toContain(SECRET.slice(0, 12));
    expect((await t.services.store("main").readText(handle)).includes(SECRET)).toBe(true);
  });

  it("refuses another session's output unless the operator opts in, and then still redacts", async () => {
    const { t, handle } = await sessionWithSecretOutput();
    cleanup = () => t.cleanup();
    const other = await runChatCommand(t.services, {
      agentId: "main",
      sessionKey: "agent:main:else",
      args: `fetch ${handle}`,
    });
    expect(other.text).toMatch(/No output of this chat's session has that handle/);
    const open = await sessionWithSecretOutput({ retrieval: { chatFetchAnySession: true } });
    const opened = await runChatCommand(open.t.services, {
      agentId: "main",
      sessionKey: "agent:main:else",
      args: `fetch ${open.handle} lines 38-41`,
    });
    await open.t.cleanup();
    expect(opened.text).toMatch(/^\[context-ledger fetch /);
    expect(opened.text).not.toContain(SECRET);
  });
});
