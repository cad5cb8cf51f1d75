import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArtifactStore, type ArtifactStore } from "../artifacts/index.js";
import { parseConfig, resolveAgentSettings } from "../config/parse-config.js";
import { artifactRoot } from "../state/paths.js";
import { createCaptureIndex, type CaptureIndex } from "./capture-index.js";
import { captureTurnOutputs } from "./capture-turn.js";

const settings = resolveAgentSettings(parseConfig({}), "main");
const output = (tag: string) =>
  `${tag}\n${Array.from({ length: 2_500 }, (_, i) => `line ${i + 1} ${"q".repeat(50)}`).join("\n")}\n`;
// 2026.4.24 keeps the head of an exec result in the text (its notice right after it) and the whole output in
// details.aggregated.
const hostCut = (full: string) => `${full.slice(0, 16_000)}[... ${full.length - 16_000} more characters truncated]`;
const execResult = (id: string, full: string, details: Record<string, unknown> = { aggregated: full }) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "exec",
  content: [{ type: "text", text: hostCut(full) }],
  details,
});

const textOfResult = hostCut;

let tmp: string;
let store: ArtifactStore;
let captures: CaptureIndex;
beforeEach(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-capture-turn-"));
  store = createArtifactStore({ root: artifactRoot(tmp, "main") });
  captures = createCaptureIndex(tmp, "main");
});
afterEach(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

const capture = (messages: unknown[], sessionKey: string, spillDir = tmp) =>
  captureTurnOutputs({
    messages,
    settings,
    store,
    captures,
    origin: { agentId: "main", sessionKey, sessionId: `${sessionKey}-id` },
    spill: { spillDirs: [spillDir] },
  });

describe("captureTurnOutputs", () => {
  it("records a teed whole output beside the host's copy and links it to the text the host persisted", async () => {
    // What 2026.4.24 does with a 1 MB exec output: details.aggregated holds the last 200,000 chars (the final
    // newline trimmed), the text it persists is the head of that, cut again.
    const whole = Array.from({ length: 17_000 }, (_, i) => `row ${i + 1} ${"z".repeat(50)}`).join("\n") + "\n";
    const kept = whole.slice(-200_000).trimEnd();
    const persisted = { ...execResult("call_t", kept), toolCallId: "call_t" };
    const inMemory = { ...persisted, content: [{ type: "text", text: kept }] };
    const teed = await store.stash(whole, { kind: "tool-output" });
    const handles = await captureTurnOutputs({
      messages: [inMemory],
      settings,
      store,
      captures,
      origin: { agentId: "main", sessionKey: "agent:main:t", sessionId: "sid-t" },
      teedOutput: async (id) =>
        id === "call_t" ? { handle: teed.handle, chars: whole.length, lines: 17_000, bytes: whole.length } : undefined,
    });
    expect(handles).toContain(teed.handle);
    const found = createCaptureIndex(tmp, "main").resolve({
      hostId: "call_t",
      hostText: persisted.content[0]?.text ?? "",
      session: { sessionKey: "agent:main:t", sessionId: "sid-t" },
    });
    expect(found).toMatchObject({ handle: teed.handle, chars: whole.length, source: "exec-tee" });
  });

  it("stores details.aggregated and links it to that very message, not to another result with the same id", async () => {
    const a = execResult("call_1", output("A"));
    const [handle] = await capture([a], "agent:main:s");
    expect(await store.readText(handle as string)).toBe(output("A"));
    const session = { sessionKey: "agent:main:s", sessionId: "agent:main:s-id" };
    expect(captures.resolve({ hostId: "call_1", hostText: a.content[0]?.text ?? "", session })?.handle).toBe(handle);
    // Same id, another output whose head differs: not linked.
    const b = execResult("call_1", output("B"));
    expect(captures.resolve({ hostId: "call_1", hostText: b.content[0]?.text ?? "", session })).toBeUndefined();
    const [hb] = await capture([b], "agent:main:s");
    expect(hb).not.toBe(handle);
    expect(captures.resolve({ hostId: "call_1", hostText: b.content[0]?.text ?? "", session })?.handle).toBe(hb);
  });

  it("keeps sessions apart: two sessions reusing call_1 each fetch their own output", async () => {
    const x = execResult("call_1", output("X"));
    const y = execResult("call_1", output("Y"));
    const [hx] = await capture([x], "agent:main:x");
    const [hy] = await capture([y], "agent:main:y");
    expect(await store.readText(hx as string)).toBe(output("X"));
    expect(await store.readText(hy as string)).toBe(output("Y"));
    expect(
      captures.resolve({
        hostId: "call_1",
        hostText: x.content[0]?.text ?? "",
        session: { sessionKey: "agent:main:y" },
      }),
    ).toBeUndefined();
  });

  it("never reads a path a tool result names unless it is the host's own spill file", async () => {
    const full = output("S");
    const spill = path.join(tmp, "openclaw-bash-00112233aabbccdd.log");
    await fsp.writeFile(spill, full, { mode: 0o600 });
    const ok = { ...execResult("call_s", full, { fullOutputPath: spill }) };
    const [h1] = await capture([ok], "agent:main:s");
    expect(await store.readText(h1 as string)).toBe(full);
    const secret = path.join(tmp, "id_rsa");
    await fsp.writeFile(secret, `${full.slice(0, 16_000)} PRIVATE KEY`, { mode: 0o600 });
    const evil = execResult("call_e", output("E"), { fullOutputPath: secret });
    const [h2] = await capture([evil], "agent:main:s");
    expect(await store.readText(h2 as string)).not.toContain("PRIVATE KEY");
    expect(await store.readText(h2 as string)).toBe(evil.content[0]?.text);
  });
});

describe("captureTurnOutputs on hosts that cap what plugins see", () => {
  it("says which part exec kept when its output reached the retention cap, and nothing when it did not", async () => {
    const tail = output("T").padEnd(250_000, "z").slice(-200_000);
    // 2026.8.2 and 2026.9.6 put a note before what exec kept, in the text only (not in details.aggregated).
    const note = "[earlier output was discarded at the retention cap and cannot be recovered]\n\n";
    const notedText = `${note}${hostCut(tail)}`;
    await capture([{ ...execResult("call_n", tail), content: [{ type: "text", text: notedText }] }], "agent:main:c");
    const n = captures.resolve({ hostId: "call_n", hostText: notedText, session: { sessionKey: "agent:main:c" } });
    expect(n?.chars).toBe(200_000);
    expect(n?.partial).toMatch(/^exec kept only the last 200,000 chars of this output/);
    // Earlier lines keep the last 200,000 chars without a note: an output of exactly that size may have lost its head.
    await capture([execResult("call_x", tail)], "agent:main:c");
    const x = captures.resolve({
      hostId: "call_x",
      hostText: textOfResult(tail),
      session: { sessionKey: "agent:main:c" },
    });
    expect(x?.partial).toMatch(/this one reached that cap: earlier output may have been discarded/);
    // A 100,000-char text is whole: no plugin-side cap remains (the tool-result middleware is gone).
    const whole = output("W").padEnd(150_000, "z").slice(0, 100_000);
    const plain = {
      role: "toolResult",
      toolCallId: "call_w",
      toolName: "exec",
      content: [{ type: "text", text: whole }],
    };
    await capture([plain], "agent:main:c");
    const w = captures.resolve({ hostId: "call_w", hostText: whole, session: { sessionKey: "agent:main:c" } });
    expect(w?.chars).toBe(100_000);
    expect(w?.partial).toBeUndefined();
  });
});
