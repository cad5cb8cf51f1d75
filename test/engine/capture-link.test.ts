/**
 * The prompt cites the captured original even when the host re-id'd and truncated the
 * tool result (2026.8.x-9.x store `call_t1_r1` as `callt1r1` and keep ~16k chars), and
 * never another session's capture of the same call id.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCaptureIndex } from "../../src/capture/capture-index.js";
import { countLines } from "../../src/artifacts/index.js";
import { parseStubHandle } from "../../src/results/stub.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";

const hostCut = (text: string) =>
  `${text.slice(0, 15_899)}[... ${text.length - 15_899} more characters truncated; rerun with narrower args if needed]`;

describe("assembly links host copies to captures", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  beforeEach(async () => {
    t = await createTestEngine();
  });
  afterEach(async () => t.cleanup());

  const capture = async (sessionKey: string, sessionId: string, rawId: string, text: string) => {
    const { handle } = await t.services.store("main").stash(text);
    await createCaptureIndex(t.services.root, "main").record({
      toolCallId: rawId,
      toolName: "exec",
      sessionKey,
      sessionId,
      handle,
      chars: text.length,
      lines: countLines(text),
      source: "after-tool-call",
    });
    return handle;
  };
  const toolText = async (sessionKey: string, sessionId: string, hostId: string, text: string) => {
    const messages = [
      user("Turn 1: run it"),
      call(hostId, "exec", { command: "cat big.log" }),
      result(hostId, "exec", hostCut(text)),
      assistant("Done."),
      user("Turn 3: fetch lines 1200-1210"),
    ];
    const out = (await t.engine.assemble({ sessionId, sessionKey, messages, tokenBudget: 32_000 })) as {
      messages: { role: string; content: unknown }[];
    };
    const tool = out.messages.find((m) => m.role === "toolResult");
    return JSON.stringify(tool?.content ?? "");
  };

  it("cites the capture's handle and true size for provider ids the host rewrote", async () => {
    for (const [rawId, hostId] of [
      ["call_t1_r1", "callt1r1"],
      ["call_AbC_12-x", "callAbC12x"],
      ["toolu_01XFDUDYJgAACzvnptvVoYEL", "toolu_01XFDUDYJgAACzvnptvVoYEL"],
    ] as const) {
      const text = `${rawId}\n${logText(100_000, rawId.length)}`;
      const handle = await capture(`agent:main:${rawId}`, `sid-${rawId}`, rawId, text);
      const shown = JSON.parse(await toolText(`agent:main:${rawId}`, `sid-${rawId}`, hostId, text)) as {
        text: string;
      }[];
      const stub = shown[0]?.text ?? "";
      expect(parseStubHandle(stub), `${rawId} → ${hostId}`).toBe(handle);
      expect(stub).toContain(
        `Full output stored losslessly under this handle: ${text.length.toLocaleString("en-US")} chars · ${countLines(text).toLocaleString("en-US")} lines.`,
      );
      expect(stub).toContain(`tool_call {"id":"ledger_fetch","args":{"handle":"${handle}"`);
    }
  });

  it("says plainly when only the host's truncated copy exists, and never borrows another session's capture", async () => {
    const theirs = `X\n${logText(100_000, 7)}`;
    const mine = `Y\n${logText(100_000, 9)}`;
    const theirHandle = await capture("agent:main:x", "sx", "call_1", theirs);
    const stub = (JSON.parse(await toolText("agent:main:y", "sy", "call1", mine)) as { text: string }[])[0]?.text ?? "";
    expect(parseStubHandle(stub)).not.toBe(theirHandle);
    expect(stub).toMatch(
      /NOT the whole output \(host kept [\d,]+ lines, 15,899 of 100,002 chars; the rest was not captured\)/,
    );
  });
});
