import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HANDLE_PREFIX, createArtifactStore, type ArtifactStore } from "../artifacts/index.js";
import { isLedgerBlock } from "../results/stub.js";
import { createLedgerToolFactory, type LedgerTool, type LedgerToolDeps } from "./tools.js";

let tmp: string;
let stores: Map<string, ArtifactStore>;
let readable: Record<string, string[]>;
let deps: LedgerToolDeps;
const OUTPUT = Array.from(
  { length: 3000 },
  (_, i) => `${i + 1}: ${i === 2500 ? "FATAL disk full" : "ok"} ${"x".repeat(40)}`,
).join("\n");

beforeEach(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-tools-"));
  stores = new Map();
  readable = {};
  deps = {
    openStore: (agent) => {
      let s = stores.get(agent);
      if (!s) stores.set(agent, (s = createArtifactStore({ root: path.join(tmp, agent) })));
      return s;
    },
    readableAgents: (agent) => readable[agent] ?? [],
    listAgents: () => [...stores.keys()],
    defaultMaxChars: 8000,
    grepTimeoutMs: 500,
  };
});
afterEach(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

function tools(agentId: string): { fetch: LedgerTool; peek: LedgerTool } {
  const [fetch, peek] = createLedgerToolFactory(deps)({ agentId });
  return { fetch: fetch as LedgerTool, peek: peek as LedgerTool };
}

describe("ledger_fetch / ledger_peek", () => {
  it("fetches the requested slice of a 150,000-char output", async () => {
    const { handle } = await deps.openStore("main").stash(OUTPUT);
    expect(OUTPUT.length).toBeGreaterThan(140_000);
    const r = await tools("main").fetch.execute("c1", {
      handle,
      selector: { kind: "grep", pattern: "fatal", flags: "i", context: 1 },
    });
    const text = r.content[0]?.text ?? "";
    expect(text.split("\n")).toEqual([
      `[context-ledger fetch ${handle} · grep /fatal/i: 1 matching lines of 3,000, 1 shown]`,
      `2500-2500: ok ${"x".repeat(40)}`,
      `2501:2501: FATAL disk full ${"x".repeat(40)}`,
      `2502-2502: ok ${"x".repeat(40)}`,
    ]);
    expect(isLedgerBlock(text)).toBe(true);
    expect(r.details).toMatchObject({ handle, truncated: false, totalLines: 3000, agentId: "main" });

    const range = await tools("main").fetch.execute("c2", { handle, selector: { kind: "range", start: 10, end: 11 } });
    expect(range.content[0]?.text.split("\n").slice(1)).toEqual([
      `10: ok ${"x".repeat(40)}`,
      `11: ok ${"x".repeat(40)}`,
    ]);
    const capped = await tools("main").fetch.execute("c3", { handle, maxChars: 500 });
    expect((capped.details.returnedChars as number) <= 500).toBe(true);
    expect(capped.details.truncated).toBe(true);
  });

  it("takes a handle's first 8+ hex digits where they start one handle the agent may read", async () => {
    const { handle } = await deps.openStore("main").stash(OUTPUT);
    const { handle: theirs } = await deps.openStore("ops").stash("ops only");
    const { fetch, peek } = tools("main");
    const r = await fetch.execute("c", { handle: handle.slice(-64, -52), lines: "2501" });
    expect(r.details).toMatchObject({ handle, agentId: "main" });
    expect((await peek.execute("c", { handle: handle.slice(-64, -56) })).details).toMatchObject({ handle });
    // Another agent's store is searched only when this agent may read it.
    expect((await fetch.execute("c", { handle: theirs.slice(-64, -52) })).details.error).toMatchObject({
      code: "artifact_not_found",
    });
    readable.main = ["ops"];
    expect((await fetch.execute("c", { handle: theirs.slice(-64, -52) })).details).toMatchObject({
      handle: theirs,
      agentId: "ops",
    });
    expect((await fetch.execute("c", { handle: handle.slice(-64, -58) })).details.error).toMatchObject({
      code: "handle_invalid",
    });
  });

  it("returns errors as text with details.error, never throws", async () => {
    const { fetch } = tools("main");
    const bad = await fetch.execute("c", { handle: `${HANDLE_PREFIX}${"A".repeat(64)}` });
    expect(bad.details.error).toMatchObject({ code: "handle_invalid" });
    expect(bad.content[0]?.text).toMatch(/^\[context-ledger fetch error\] handle_invalid: .*uppercase/);
    expect((await fetch.execute("c", { handle: `${HANDLE_PREFIX}${"0".repeat(64)}` })).details.error).toMatchObject({
      code: "artifact_not_found",
    });
    const { handle } = await deps.openStore("main").stash("abc");
    expect(
      (await fetch.execute("c", { handle, selector: { kind: "grep", pattern: "(a+)+" } })).details.error,
    ).toMatchObject({ code: "pattern_refused" });
    expect((await fetch.execute("c", { handle, selector: { kind: "bogus" } })).details.error).toMatchObject({
      code: "selector_invalid",
    });
    expect((await fetch.execute("c", "nope")).details.error).toMatchObject({ code: "input_invalid" });
    expect((await fetch.execute("c", { handle, maxChars: 50_000 })).details.error).toMatchObject({
      code: "input_invalid",
    });
    const ac = new AbortController();
    ac.abort();
    expect((await fetch.execute("c", { handle }, ac.signal)).details.error).toMatchObject({ code: "aborted" });
  });

  it("scopes by agent: another agent's artifact is not found unless readable", async () => {
    const { handle } = await deps.openStore("ops").stash("ops secret output");
    const denied = await tools("main").fetch.execute("c", { handle });
    expect(denied.details.error).toMatchObject({ code: "artifact_not_found" });
    expect(denied.content[0]?.text).not.toContain("ops");
    readable.main = ["ops"];
    expect((await tools("main").fetch.execute("c", { handle })).details).toMatchObject({ agentId: "ops" });
    readable.main = [];
    readable.other = ["*"];
    deps.openStore("other");
    expect((await tools("other").fetch.execute("c", { handle })).details).toMatchObject({ agentId: "ops" });
  });

  it("a 10-line fetch reads only the chunks that hold those lines", async () => {
    let bytesRead = 0;
    const root = path.join(tmp, "chunked");
    const big = Array.from({ length: 200_000 }, (_, i) => `${i + 1}: ${"y".repeat(i % 50)} done`).join("\n");
    const { handle } = await createArtifactStore({ root, chunkBytes: 64 * 1024 }).stash(big);
    const blobBytes = (await createArtifactStore({ root }).stats()).storedBytes;
    stores.set("main", createArtifactStore({ root, onBlobRead: (n) => (bytesRead += n) }));
    const r = await tools("main").fetch.execute("c1", { handle, lines: "150000-150009" });
    expect(r.content[0]?.text.split("\n").slice(1)).toEqual(big.split("\n").slice(149_999, 150_009));
    expect(bytesRead).toBeGreaterThan(0);
    expect(bytesRead).toBeLessThan(blobBytes / 10);
  });

  it("peek shows metadata and a 300-800 char preview with secrets redacted", async () => {
    deps.redact = (t) => t.replaceAll("hunter2", "[REDACTED]");
    const { handle } = await deps.openStore("main").stash(`password hunter2\n${OUTPUT}`, {
      kind: "tool-output",
      format: "log",
      origin: { toolName: "exec", toolCallId: "call-9" },
    });
    const r = await tools("main").peek.execute("c", { handle, previewChars: 5000 });
    const text = r.content[0]?.text ?? "";
    expect(text).toMatch(
      /^\[context-ledger peek ledger:v1:sha256:[0-9a-f]{64}\]\n[\d,]+ bytes · 3,001 lines · log · kind tool-output/,
    );
    expect(text).toContain("origin: tool exec, call call-9");
    expect(text).not.toContain("hunter2");
    const preview = text.split("--- preview (head and tail) ---\n")[1]?.split("\n--- end preview ---")[0] ?? "";
    expect(preview.length).toBeGreaterThan(700);
    expect(preview.length).toBeLessThanOrEqual(830);
  });
});

describe("ledger_fetch as models call it", () => {
  it('answers lines "1200-1210" with a handle missing its ledger: prefix, byte-exact', async () => {
    const { handle } = await deps.openStore("main").stash(OUTPUT);
    const r = await tools("main").fetch.execute("c", { handle: handle.slice("ledger:".length), lines: "1200-1210" });
    const [header, ...body] = (r.content[0]?.text ?? "").split("\n");
    expect(header?.startsWith(`[context-ledger fetch ${handle} · `)).toBe(true);
    expect(body).toEqual(OUTPUT.split("\n").slice(1199, 1210));
    expect(r.details).toMatchObject({ handle, selector: { kind: "range", start: 1200, end: 1210 } });
    const bad = await tools("main").fetch.execute("c", { handle, lines: "first ten" });
    expect(bad.details.error).toMatchObject({ code: "input_invalid" });
    expect(bad.content[0]?.text).toContain('Accepted: {"handle":"ledger:v1:sha256:<64 hex>"}');
  });
});
