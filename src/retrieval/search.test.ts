import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArtifactStore, type ArtifactStore } from "../artifacts/index.js";
import { redactSecrets } from "../results/redact.js";
import { createLedgerTools, type LedgerTool } from "./tools.js";

let tmp: string;
let stores: Map<string, ArtifactStore>;
const store = (agent: string): ArtifactStore => {
  let s = stores.get(agent);
  if (!s) stores.set(agent, (s = createArtifactStore({ root: path.join(tmp, agent) })));
  return s;
};
const toolsOf = (agentId: string, sessionKey: string) =>
  createLedgerTools(
    {
      openStore: store,
      readableAgents: () => "*",
      listAgents: () => [...stores.keys()],
      defaultMaxChars: 8_000,
      redact: (t) => redactSecrets(t),
    },
    { agentId, sessionKey },
  );
const byName = (tools: LedgerTool[], name: string) => tools.find((t) => t.name === name) as LedgerTool;
const text = (r: { content: { text: string }[] }) => r.content[0]?.text ?? "";

const log = (tag: string, lines: number, special: Record<number, string> = {}) =>
  Array.from({ length: lines }, (_, i) => special[i + 1] ?? `${tag} line ${i + 1} status=ok`).join("\n");

beforeEach(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-search-"));
  stores = new Map();
});
afterEach(async () => fsp.rm(tmp, { recursive: true, force: true }));

describe("ledger_search: the session's whole stored history, bounded and redacted", () => {
  it("finds a line in an output no prompt names any more, with a handle ledger_fetch takes as is", async () => {
    const session = "agent:main:s1";
    const old = await store("main").stash(log("build", 400, { 137: "ERROR Plant-fact: the deploy key is blue-42" }), {
      origin: { sessionKey: session, toolName: "exec" },
    });
    for (let i = 0; i < 5; i++)
      await store("main").stash(log(`run${i}`, 50), { origin: { sessionKey: session, toolName: "exec" } });
    const tools = toolsOf("main", session);
    const r = await byName(tools, "ledger_search").execute("c1", { query: "plant-fact" });
    expect(r.details).toMatchObject({ matches: 1, outputs: 6, searched: 6, timedOut: false });
    expect(text(r)).toContain(`${old.handle} · exec`);
    expect(text(r)).toContain("137:ERROR Plant-fact: the deploy key is blue-42");
    const handle = /ledger:v1:sha256:[0-9a-f]{64}/.exec(text(r))?.[0];
    const fetched = await byName(tools, "ledger_fetch").execute("c2", { handle, lines: "137-137" });
    expect(text(fetched).split("\n")[1]).toBe("ERROR Plant-fact: the deploy key is blue-42");
  });

  it("never answers from another session or another agent, even one it may fetch from", async () => {
    await store("main").stash("secret plan of session two", { origin: { sessionKey: "agent:main:s2" } });
    await store("ops").stash("secret plan of agent ops", { origin: { sessionKey: "agent:main:s1" } });
    const r = await byName(toolsOf("main", "agent:main:s1"), "ledger_search").execute("c", { query: "secret plan" });
    expect(r.details).toMatchObject({ matches: 0, outputs: 0 });
    expect(text(r)).not.toContain("secret plan of");
  });

  it("redacts secrets in matched lines, and holds maxResults and the answer's cap", async () => {
    const session = "agent:main:s3";
    const key = `sk-${"a1B2c3D4e5".repeat(4)}`;
    await store("main").stash(`config loaded\napi_key=${key} for token refresh\n`, {
      origin: { sessionKey: session, toolName: "exec" },
    });
    const many = log(
      "noisy",
      5_000,
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [i * 10 + 1, `hit ${i}`])),
    );
    await store("main").stash(many, { origin: { sessionKey: session, toolName: "exec" } });
    const tools = toolsOf("main", session);
    const secret = await byName(tools, "ledger_search").execute("c", { query: "token refresh" });
    expect(text(secret)).toContain("token refresh");
    expect(text(secret)).not.toContain(key);
    const bounded = await byName(tools, "ledger_search").execute("c", { query: "hit", maxResults: 7 });
    const lines = text(bounded)
      .split("\n")
      .filter((l) => /^\d+:/.test(l));
    expect(lines).toHaveLength(7);
    expect(text(bounded)).toContain("more left out");
    expect(text(bounded).length).toBeLessThanOrEqual(8_000 + 1_000);
  });

  it("refuses a bad query with a clear error result, never a throw", async () => {
    const search = byName(toolsOf("main", "agent:main:s4"), "ledger_search");
    expect(text(await search.execute("c", { query: "" }))).toMatch(/search error\] input_invalid: Expected `query`/);
    expect(text(await search.execute("c", { query: "(a+)+$", regex: true }))).toMatch(/pattern_refused/);
    expect(text(await search.execute("c", { query: "(a+)+$" }))).toMatch(/0 matching lines/);
    expect(text(await search.execute("c", { query: "x", maxResults: 1_000 }))).toMatch(/maxResults/);
  });
});
