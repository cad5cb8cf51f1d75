import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createTestEngine } from "../support/engine-harness.js";
import { createLedgerTools, type LedgerTool } from "../../src/retrieval/tools.js";
import { captureSessionOf } from "../../src/capture/capture-index.js";
import { storedOutputOfCall } from "../../src/capture/full-exec/call-output.js";
import { storeTeedCall, wrapForFullCapture } from "../../src/capture/full-exec/full-exec-hook.js";

type TestEngine = Awaited<ReturnType<typeof createTestEngine>>;

/** Runs `command` as the gateway does (`bash -c`, stdout and stderr merged); answers its output once it ends. */
function runShell(command: string): { done: Promise<Buffer>; pid: number } {
  const child = spawn("bash", ["-c", command], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const chunks: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => chunks.push(c));
  child.stderr.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => child.on("close", () => resolve(Buffer.concat(chunks))));
  return { done, pid: child.pid as number };
}

/** Wraps `command` as the before_tool_call hook does for call `toolCallId` of `sessionKey`, and starts it. */
async function startWrapped(
  t: TestEngine,
  ctx: { agentId: string; sessionKey: string; toolCallId: string },
  command: string,
): Promise<{ done: Promise<Buffer>; pid: number }> {
  const hooked = await wrapForFullCapture(
    t.services,
    { config: {}, trackPending: true },
    { toolName: "exec", toolCallId: ctx.toolCallId, params: { command } },
    ctx,
  );
  return runShell(String(hooked?.params.command));
}

/** `ledger_fetch` of one session, reading call outputs as the plugin wires it (`waitMs` overrides the bound). */
function fetchToolOf(t: TestEngine, sessionKey: string, waitMs?: number): LedgerTool {
  const [fetch] = createLedgerTools(
    {
      openStore: (agentId) => t.services.store(agentId),
      readableAgents: () => [],
      outputOfCall: (agentId, context, id) =>
        storedOutputOfCall(t.services, agentId, {
          session: captureSessionOf(context),
          toolCallId: id,
          ...(waitMs === undefined ? {} : { waitMs }),
        }),
    },
    { agentId: "main", sessionKey },
  );
  return fetch as LedgerTool;
}

const LINES = 17_000;
const NUMBERED = `for i in $(seq 1 ${LINES}); do echo "line $i ${"z".repeat(50)}"; done`;

describe("fetching a call's output by its id", () => {
  it("waits for the after_tool_call store already under way instead of answering none", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:race", toolCallId: "call_race" };
    const out = await (await startWrapped(t, ctx, NUMBERED)).done;
    const result = { content: [{ type: "text", text: "(the host's cut copy)" }] };
    // The host fires after_tool_call without waiting for it: its store of the tee file is under way when the
    // model's fetch of the same call arrives.
    const hook = storeTeedCall(t.services, { toolCallId: ctx.toolCallId, toolName: "exec", result }, ctx);
    const got = await fetchToolOf(t, ctx.sessionKey).execute("call_f1", {
      toolCallId: ctx.toolCallId,
      lines: `${LINES - 9}-${LINES}`,
    });
    await hook;
    expect(got.details.error).toBeUndefined();
    expect(got.content[0]?.text.split("\n").slice(1)).toEqual(out.toString("utf8").trimEnd().split("\n").slice(-10));
  });

  it("waits, bounded, for a command the host sent to the background to end, then answers its whole output", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:bg", toolCallId: "call_bg" };
    const running = await startWrapped(t, ctx, `sleep 0.5; ${NUMBERED}`);
    const result = { content: [{ type: "text", text: "Command still running (session abc12345, pid 1)." }] };
    await storeTeedCall(t.services, { toolCallId: ctx.toolCallId, toolName: "exec", result }, ctx);
    const got = await fetchToolOf(t, ctx.sessionKey, 20_000).execute("call_f1", {
      toolCallId: ctx.toolCallId,
      lines: `${LINES - 9}-${LINES}`,
    });
    const out = await running.done;
    expect(got.details.error).toBeUndefined();
    expect(got.content[0]?.text.split("\n").slice(1)).toEqual(out.toString("utf8").trimEnd().split("\n").slice(-10));
  });

  it("says the command still runs when it has not ended within the wait, while it runs", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:slow", toolCallId: "call_slow" };
    const running = await startWrapped(t, ctx, "echo started; sleep 30");
    const result = { content: [{ type: "text", text: "Command still running (session abc12345, pid 1)." }] };
    await storeTeedCall(t.services, { toolCallId: ctx.toolCallId, toolName: "exec", result }, ctx);
    const got = await fetchToolOf(t, ctx.sessionKey, 300).execute("call_f1", { toolCallId: ctx.toolCallId });
    expect(got.details.error).toMatchObject({ code: "artifact_not_found" });
    expect(got.content[0]?.text).toMatch(/within 300 ms, got none yet: its command is still running/);
    // The answer came before the command ended: its process group is still there to be signalled.
    expect(() => process.kill(-running.pid, 0)).not.toThrow();
    process.kill(-running.pid, "SIGKILL");
    await running.done;
  });

  it("answers none without waiting for a call of this session that nothing stored or is storing", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    // A wait of 0 ms would time out at once: an answer after a wait says the call is still running.
    const got = await fetchToolOf(t, "agent:main:none", 0).execute("call_f1", { toolCallId: "call_unknown" });
    expect(got.details.error).toMatchObject({ code: "artifact_not_found" });
    expect(got.content[0]?.text).toMatch(/Expected a stored output of call call_unknown in this session, got none/);
    expect(got.content[0]?.text).not.toMatch(/still running/);
  });
});
