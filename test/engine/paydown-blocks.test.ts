/**
 * Paydown of one host result that carries two text blocks (2026.4.24: the output, then a note):
 * `details.aggregated` is the whole output of the block that shows it, not of the note, so the
 * note survives; and an exec output at exec's own 200,000-char cap is stubbed as partial.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readActiveBranch } from "../../src/maintenance/transcript-jsonl.js";
import { parseStubHandle } from "../../src/results/stub.js";
import { createTestEngine, logText } from "../support/engine-harness.js";

const SESSION = "7d0c2b9e-1a4f-4c3e-8b5a-2f6e9d1c0b01";

function transcript(output: string, note: string): string {
  const head = `${output.slice(0, 15_000)}[... ${output.length - 15_000} more characters truncated]`;
  const t0 = Date.parse("2026-04-25T10:00:00.000Z");
  const entries = [
    { role: "user", content: [{ type: "text", text: "run it" }] },
    { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "exec", arguments: { command: "make" } }] },
    {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "exec",
      content: [
        { type: "text", text: head },
        { type: "text", text: note },
      ],
      details: { status: "completed", exitCode: 0, aggregated: output },
    },
    { role: "assistant", content: [{ type: "text", text: "done" }] },
  ];
  const lines: unknown[] = [{ type: "session", version: 3, id: SESSION, timestamp: new Date(t0).toISOString() }];
  entries.forEach((message, i) =>
    lines.push({
      type: "message",
      id: `e${i + 1}`,
      parentId: i === 0 ? null : `e${i}`,
      timestamp: new Date(t0 + (i + 1) * 1000).toISOString(),
      message: { ...message, timestamp: t0 + (i + 1) * 1000 },
    }),
  );
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

describe("paydown of a result with two blocks", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  let dir: string;
  beforeEach(async () => {
    t = await createTestEngine({}, "2026.4");
    dir = await mkdtemp(path.join(os.tmpdir(), "ledger-paydown-blocks-"));
  });
  afterEach(async () => {
    await t.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  const payDown = async (output: string, note: string) => {
    const file = path.join(dir, `${SESSION}.jsonl`);
    await writeFile(file, transcript(output, note));
    const entries = await readActiveBranch(file);
    const sessionKey = "agent:main:blocks";
    await t.engine.assemble({
      sessionId: SESSION,
      sessionKey,
      messages: entries.map((e) => e.message),
      tokenBudget: 8_000,
    });
    let replaced: Record<string, unknown> | undefined;
    await t.engine.maintain({
      sessionId: SESSION,
      sessionKey,
      sessionFile: file,
      runtimeContext: {
        rewriteTranscriptEntries: async (req: {
          replacements: { entryId: string; message: Record<string, unknown> }[];
        }) => {
          replaced = req.replacements.find((r) => r.entryId === "e3")?.message;
          return { changed: true, bytesFreed: 1, rewrittenEntries: req.replacements.length };
        },
      },
    });
    return (replaced?.content ?? []) as { text: string }[];
  };

  it("keeps the note block's own text and stubs the output from details.aggregated", async () => {
    const output = logText(150_000, 4);
    const note = `Note: the build printed 3 warnings; see docs/build.md. ${"(details) ".repeat(60)}`;
    const blocks = await payDown(output, note);
    expect(blocks).toHaveLength(2);
    const handle = parseStubHandle(blocks[0]?.text);
    expect((await t.services.store("main").read(handle as string)).toString("utf8")).toBe(output);
    // Under the offload size the note stays as it was; a stub of it would cite the note, never the output.
    const second = blocks[1]?.text ?? "";
    const secondHandle = parseStubHandle(second);
    if (secondHandle)
      expect((await t.services.store("main").readText(secondHandle)).startsWith("Note: the build")).toBe(true);
    else expect(second).toBe(note);
  });

  it("says an exec output at exec's 200,000-char cap may not be whole", async () => {
    const output = logText(400_000, 6).slice(-199_999);
    const blocks = await payDown(output, "exit 0");
    expect(blocks[0]?.text).toMatch(/NOT the whole output \(exec keeps at most the last 200,000 chars/);
  });
});
