import { describe, expect, it } from "vitest";
import { HANDLE_PREFIX } from "../artifacts/index.js";
import { fetchSelector, normalizeFetchHandle } from "../retrieval/fetch-input.js";
import { PACKED_TARBALL } from "../version.js";
import {
  buildStub,
  coverageOfText,
  fetchCallExamples,
  offRampLine,
  parseStubHandle,
  promptStubText,
  uninstalledFetchCommand,
} from "./stub.js";

const HANDLE = `${HANDLE_PREFIX}${"c".repeat(64)}`;
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} ${"z".repeat(50)}`).join("\n");

describe("stub text", () => {
  it("a transcript stub says how to get the output back once the plugin's tools are gone; the prompt leaves it out", () => {
    const stub = buildStub({
      handle: HANDLE,
      summary: "exec output",
      coverage: { chars: 10, lines: 1 },
      offRamp: true,
    });
    // Once uninstalled: the standalone command from the tarball the operator installed, printing the original bytes.
    expect(stub).toContain(
      `Uninstalled: \`npx --yes --offline -p ./${PACKED_TARBALL} context-ledger artifact fetch cccccccccccc --raw\`.`,
    );
    expect(stub).toContain(`\`${uninstalledFetchCommand(HANDLE)}\``);
    expect(stub.indexOf("context-ledger artifact fetch")).toBeGreaterThan(stub.indexOf(HANDLE));
    const prompt = buildStub({ handle: HANDLE, summary: "exec output", coverage: { chars: 10, lines: 1 } });
    expect(prompt).not.toContain("npx");
    expect(promptStubText(stub)).toBe(prompt);
    expect(parseStubHandle(promptStubText(stub))).toBe(HANDLE);
    // A person reading the chat is told how to read it there, with a handle short enough to type.
    expect(stub).toContain("In chat: `/ledger fetch cccccccccccc`.");
    // Stubs written with the earlier wordings leave the prompt without them too.
    for (const line of [
      "Without context-ledger (no ledger tools): the operator gets it with `context-ledger artifact fetch <handle>` or `context-ledger export`.",
      "In chat: `/ledger fetch <handle>`. Without context-ledger: `context-ledger artifact fetch <handle>` or `context-ledger export`.",
      "In chat: `/ledger fetch cccccccccccc`. Without context-ledger: `context-ledger artifact fetch cccccccccccc` or `context-ledger export`.",
    ]) {
      const older = stub.replace(/\nIn chat: [^\n]*/, `\n${line}`);
      expect(older).not.toBe(stub);
      expect(promptStubText(older)).toBe(prompt);
    }
    // Deterministic (the transcript stub stays byte-stable) and one short line: 2026.4.24's precheck sizes it.
    expect(
      buildStub({ handle: HANDLE, summary: "exec output", coverage: { chars: 10, lines: 1 }, offRamp: true }),
    ).toBe(stub);
    expect(offRampLine(HANDLE).length).toBeLessThanOrEqual(165);
  });

  it("states the handle's true size and whether it is the whole output", () => {
    const full = buildStub({ handle: HANDLE, summary: "exec output", coverage: { chars: 150_000, lines: 2_500 } });
    expect(full).toContain("Full output stored losslessly under this handle: 150,000 chars · 2,500 lines.");
    const part = buildStub({
      handle: HANDLE,
      summary: "exec output",
      coverage: {
        chars: 100_000,
        lines: 1_667,
        partial: "the host hands plugins at most 100,000 chars of a tool result; the rest was not captured",
      },
    });
    expect(part).toContain(
      "Stored under this handle: 100,000 chars · 1,667 lines, NOT the whole output (the host hands plugins at most 100,000 chars",
    );
    expect(part).not.toContain("Full output stored");
    expect(parseStubHandle(part)).toBe(HANDLE);
  });

  it("says plainly when only the host's truncated copy exists", () => {
    const kept = lines(265);
    const copy = `${kept}[... ${150_000 - kept.length} more characters truncated; rerun with narrower args if needed]`;
    const c = coverageOfText(copy);
    expect(c).toEqual({
      chars: copy.length,
      lines: 265,
      partial: `host kept 265 lines, ${kept.length.toLocaleString("en-US")} of 150,000 chars; the rest was not captured`,
    });
    expect(buildStub({ handle: HANDLE, text: copy })).toContain("NOT the whole output (host kept 265 lines");
    expect(coverageOfText(lines(10))).toEqual({ chars: lines(10).length, lines: 10 });
  });

  it("shows exact calls, direct and through Tool Search's tool_call, that ledger_fetch accepts", () => {
    const stub = buildStub({ handle: HANDLE, summary: "s", coverage: { chars: 10, lines: 1 } });
    const direct = /Read it: ledger_fetch (\{.*?\}) \(or/.exec(stub)?.[1];
    const via = /call tool_call (\{.*\})\. Metadata/.exec(stub)?.[1];
    expect(direct).toBeDefined();
    expect(via).toBeDefined();
    const args = JSON.parse(direct as string) as Record<string, unknown>;
    const envelope = JSON.parse(via as string) as { id: string; args: Record<string, unknown> };
    expect(envelope.id).toBe("ledger_fetch");
    expect(envelope.args).toEqual(args);
    expect(normalizeFetchHandle(args.handle)).toBe(HANDLE);
    expect(fetchSelector(args)).toEqual({ kind: "range", start: 1, end: 50 });
    expect(fetchCallExamples(HANDLE, 1200, 1210).viaToolCall).toBe(
      `tool_call {"id":"ledger_fetch","args":{"handle":"${HANDLE}","lines":"1200-1210"}}`,
    );
  });
});

describe("self-ingest guard", () => {
  it("recognises a ledger_fetch answer wrapped in Tool Search's tool_call envelope", async () => {
    const { isLedgerBlock } = await import("./stub.js");
    const answer = `[context-ledger fetch ${HANDLE} · lines 1-2 of 9 shown]\n${"x".repeat(9_000)}`;
    const envelope = JSON.stringify(
      {
        tool: { id: "ledger_fetch", name: "ledger_fetch", source: "plugin" },
        result: { content: [{ type: "text", text: answer }], details: {} },
      },
      null,
      2,
    );
    expect(isLedgerBlock(envelope)).toBe(true);
    const other = JSON.stringify({
      tool: { id: "exec", name: "exec" },
      result: { content: [{ type: "text", text: answer }] },
    });
    expect(isLedgerBlock(other)).toBe(false);
    expect(isLedgerBlock('{"ledger_fetch": 1')).toBe(false);
  });
});
