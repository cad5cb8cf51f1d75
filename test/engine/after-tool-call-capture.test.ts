/**
 * Capture through the `after_tool_call` hook, as the hosts fire it: not awaited, the
 * result's text cut to 8,000 chars, `details.aggregated` whole, the provider's call id
 * (the transcript keeps a rewritten one). The next assemble waits for the capture and
 * cites it; a call that names no agent is never filed under another one.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCaptureIndex } from "../../src/capture/capture-index.js";
import { pendingCapturesOf, registerCapture } from "../../src/capture/capture-hook.js";
import { handleForBytes } from "../../src/artifacts/index.js";
import { listAgentIds } from "../../src/state/agent-list.js";
import { parseStubHandle } from "../../src/results/stub.js";
import { createLedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import {
  assistant,
  call,
  createMemoryLogger,
  createTestEngine,
  logText,
  result,
  user,
} from "../support/engine-harness.js";

type Hook = (event: unknown, ctx: unknown) => unknown;

const hostCut = (text: string) =>
  `${text.slice(0, 15_899)}[... ${text.length - 15_899} more characters truncated; rerun with narrower args if needed]`;
const hookText = (text: string) => `${text.slice(0, 8_000)}\n…(truncated)…`;

describe("after_tool_call capture", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  let hook: Hook | undefined;
  beforeEach(async () => {
    t = await createTestEngine();
    hook = undefined;
    const api = { on: (name: string, handler: Hook) => void (name === "after_tool_call" && (hook = handler)) };
    registerCapture(api, t.services, (agentId) => createCaptureIndex(t.services.root, agentId));
  });
  afterEach(async () => t.cleanup());

  it("an engine of another copy of the plugin in the process waits for the capture as well", async () => {
    // 2026.9.6 loads the plugin twice (`full` and `discovery`): each copy builds its own runtime on the same state
    // root, and the hooks of one copy serve the engine of the other.
    const other = createLedgerRuntime({ config: t.services.config, hostLogger: createMemoryLogger().logger });
    let release = (): void => undefined;
    const writing = new Promise<void>((resolve) => (release = resolve));
    pendingCapturesOf(t.services).track({ sessionKey: "agent:main:copies" }, writing);
    expect(await pendingCapturesOf(other).settle({ sessionKey: "agent:main:copies" }, 30)).toBe(1);
    release();
    expect(await pendingCapturesOf(other).settle({ sessionKey: "agent:main:copies" }, 1_000)).toBe(0);
  });

  it("registers the hook, and the next assemble cites the capture it is still writing", async () => {
    // The hook returns at once (the host must not wait for a capture); the capture goes on beside the turn.
    expect(hook).toBeDefined();
    const full = `first\n${logText(150_000, 3)}`;
    const sessionKey = "agent:main:hook";
    expect(
      hook?.(
        {
          toolName: "exec",
          toolCallId: "call_t1_r1",
          params: { command: "cat big.log" },
          result: { content: [{ type: "text", text: hookText(full) }], details: { aggregated: full, exitCode: 0 } },
        },
        { agentId: "main", sessionKey, sessionId: "s-hook", toolName: "exec", toolCallId: "call_t1_r1" },
      ),
    ).toBeUndefined();
    const messages = [
      user("Turn 1: run it"),
      call("callt1r1", "exec", { command: "cat big.log" }),
      result("callt1r1", "exec", hostCut(full)),
      assistant("Done."),
      user("Turn 2: what did it print?"),
    ];
    const out = (await t.engine.assemble({ sessionId: "s-hook", sessionKey, messages, tokenBudget: 32_000 })) as {
      messages: { role: string; content: { text?: string }[] }[];
    };
    const stub = out.messages.find((m) => m.role === "toolResult")?.content[0]?.text ?? "";
    expect(parseStubHandle(stub)).toBe(handleForBytes(full));
    expect(stub).toContain(`Full output stored losslessly under this handle: ${full.length.toLocaleString("en-US")}`);
    expect((await t.services.store("main").read(handleForBytes(full))).toString("utf8")).toBe(full);
  });

  it("files nothing when the call names no agent (no fallback to main)", async () => {
    const full = logText(150_000, 5);
    hook?.(
      {
        toolName: "exec",
        toolCallId: "call_x",
        result: { content: [{ type: "text", text: hookText(full) }], details: { aggregated: full } },
      },
      { sessionId: "s-anon", toolName: "exec" },
    );
    await pendingCapturesOf(t.services).settle({ sessionId: "s-anon" });
    expect(await t.services.store("main").has(handleForBytes(full))).toBe(false);
    expect(await listAgentIds(t.services.root)).not.toContain("main");
  });

  it("takes the agent from the session key when the context does not name it", async () => {
    const full = logText(150_000, 7);
    hook?.(
      {
        toolName: "exec",
        toolCallId: "call_o",
        result: { content: [{ type: "text", text: hookText(full) }], details: { aggregated: full } },
      },
      { sessionKey: "agent:ops:work", toolName: "exec" },
    );
    await pendingCapturesOf(t.services).settle({ sessionKey: "agent:ops:work" });
    expect(await t.services.store("ops").has(handleForBytes(full))).toBe(true);
    expect(await t.services.store("main").has(handleForBytes(full))).toBe(false);
  });
});
