import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLedgerTools } from "../../src/retrieval/tools.js";
import { assistant, call, conversation, createTestEngine, result, user } from "../support/engine-harness.js";
import { summaryOf } from "../support/view-summary.js";

/** Every path under `dir` whose mode is looser than 0600 (files) or 0700 (folders). */
async function looseModes(dir: string): Promise<string[]> {
  const loose: string[] = [];
  const visit = async (p: string): Promise<void> => {
    const st = await fsp.lstat(p);
    if ((st.mode & 0o077) !== 0) loose.push(`${p} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of await fsp.readdir(p)) await visit(path.join(p, name));
  };
  await visit(dir);
  return loose;
}

async function fullSession(config: Parameters<typeof createTestEngine>[0] = {}) {
  const t = await createTestEngine({ offload: { maxChars: 2_000, structuredMaxChars: 1_000 }, ...config });
  const s = { sessionId: "s1", sessionKey: "agent:main:perm" };
  const messages = [...conversation(12, 6_000), user("what failed?")];
  for (let i = 0; i < 12; i++) {
    await t.engine.commitTurn({ ...s, advancementKey: `k${i}`, messages: messages.slice(i * 4, i * 4 + 4) });
  }
  await t.engine.bootstrap(s);
  await t.engine.maintain(s);
  const view = await t.engine.assemble({ ...s, messages, tokenBudget: 6_000 });
  await t.engine.compact({ ...s, force: true, tokenBudget: 6_000 });
  await t.engine.assemble({ ...s, messages, tokenBudget: 6_000 });
  await t.engine.commitTurn({ ...s, advancementKey: 7 });
  await t.engine.dispose();
  return { t, view };
}

describe("permissions audit", () => {
  it("after a full engine session no file is looser than 0600 and no folder looser than 0700", async () => {
    const { t } = await fullSession();
    expect((await fsp.readdir(t.dir)).length).toBeGreaterThan(0);
    expect(await looseModes(t.dir)).toEqual([]);
    await t.cleanup();
  });

  it("also under a permissive umask (0)", async () => {
    const previous = process.umask(0);
    try {
      const { t } = await fullSession();
      const stateFiles = await fsp.readdir(t.dir, { recursive: true });
      expect(stateFiles.some((f) => String(f).includes("artifacts"))).toBe(true);
      expect(await looseModes(t.dir)).toEqual([]);
      await t.cleanup();
    } finally {
      process.umask(previous);
    }
  });
});

describe("per-agent scoping", () => {
  it("agent B cannot fetch agent A's artifact by handle unless retrieval.readableAgents allows it", async () => {
    const t = await createTestEngine({ agents: { reader: { retrieval: { readableAgents: ["alpha"] } } } });
    const { handle } = await t.services.store("alpha").stash("alpha's private build log");
    const deps = {
      openStore: (id: string) => t.services.store(id),
      readableAgents: (id: string) => t.services.settings(id).retrieval.readableAgents,
    };
    for (const agentId of ["beta", "reader", "alpha"]) {
      const [fetch, peek] = createLedgerTools(deps, { agentId });
      const f = await fetch!.execute("c", { handle });
      const p = await peek!.execute("c", { handle });
      if (agentId === "beta") {
        expect((f.details.error as { code: string }).code).toBe("artifact_not_found");
        expect((p.details.error as { code: string }).code).toBe("artifact_not_found");
        expect(f.content[0]?.text).not.toContain("private build log");
      } else {
        expect(f.details.error).toBeUndefined();
        expect(f.content[0]?.text).toContain("alpha's private build log");
        expect(f.details.agentId).toBe("alpha");
      }
    }
    // An agent's engine offloads into its own store only.
    const s = { sessionId: "s", sessionKey: "agent:beta:x" };
    const view = await t.engine.assemble({
      ...s,
      messages: [user("go"), call("c1", "exec"), result("c1", "exec", "B".repeat(20_000)), assistant("ok")],
      tokenBudget: 4_000,
    });
    const stub = JSON.stringify(view.messages).match(/ledger:v1:sha256:[0-9a-f]{64}/)?.[0] as string;
    expect(await t.services.store("beta").has(stub)).toBe(true);
    expect(await t.services.store("alpha").has(stub)).toBe(false);
    await t.cleanup();
  });
});

const SECRETS = {
  openai: "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789",
  aws: "AKIAIOSFODNN7EXAMPLE",
  bearer: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
  pem: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----",
};
const ANY_SECRET = /sk-proj-Abcdef|AKIAIOSFODNN7EXAMPLE|eyJhbGciOiJIUzI1NiJ9|MIIEowIBAAKCAQEA/;

describe("secret redaction", () => {
  it("previews, summaries and log lines show [REDACTED]; the stored original is byte-identical at 0600", async () => {
    const t = await createTestEngine({ offload: { maxChars: 2_000, structuredMaxChars: 1_000 } });
    const s = { sessionId: "s", sessionKey: "agent:main:secrets" };
    const output = `export OPENAI_API_KEY=${SECRETS.openai}\naws_access_key_id = ${SECRETS.aws}\ncurl -H "Authorization: ${SECRETS.bearer}"\n${SECRETS.pem}\n${"log line ok\n".repeat(800)}tail: ${SECRETS.openai} ${SECRETS.aws}\n`;
    const messages = [
      user(`Deploy with my key ${SECRETS.openai} and decide: we use region eu-west-1.`),
      assistant(`Done; the token ${SECRETS.bearer} worked.`),
      ...conversation(20, 3_000),
      user("show me the environment"),
      call("c1", "exec", { command: "env" }),
      result("c1", "exec", output),
      assistant("Here it is."),
      user("what did we decide?"),
    ];
    const view = await t.engine.assemble({ ...s, messages, tokenBudget: 3_000 });
    await t.engine.compact({ ...s, force: true, tokenBudget: 3_000 });
    const after = await t.engine.assemble({ ...s, messages, tokenBudget: 3_000 });
    // Log lines: an error message quoting a secret-bearing value.
    await t.engine.commitTurn({ ...s, advancementKey: { apiKey: SECRETS.openai, auth: SECRETS.bearer } });
    await t.engine.dispose();

    const stubs = [view, after]
      .flatMap((v) => v.messages)
      .map((m) => JSON.stringify(m))
      .filter((m) => m.includes("ledger:v1:sha256:"));
    expect(stubs.length).toBeGreaterThan(0);
    for (const v of [view, after]) {
      for (const m of v.messages) {
        const text = JSON.stringify(m);
        if (text.includes("ledger:v1:sha256:")) expect(text).not.toMatch(ANY_SECRET);
      }
    }
    const stub = stubs.find((m) => m.includes("[REDACTED]"));
    expect(stub, "a stub preview shows [REDACTED]").toBeDefined();
    expect(summaryOf(after)).not.toMatch(ANY_SECRET);
    expect(t.logs.join("\n")).not.toMatch(ANY_SECRET);
    expect(t.logs.some((l) => l.includes("[REDACTED]"))).toBe(true);
    const events = await fsp.readFile(path.join(t.dir, "logs", "events.jsonl"), "utf8");
    expect(events).not.toMatch(ANY_SECRET);

    const handle = stubs
      .map((m) => m.match(/ledger:v1:sha256:[0-9a-f]{64}/)?.[0])
      .find((h) => h && h.endsWith(createHash("sha256").update(output).digest("hex")));
    expect(handle).toBeDefined();
    const [fetchTool] = createLedgerTools(
      { openStore: (id) => t.services.store(id), readableAgents: () => [] },
      { agentId: "main" },
    );
    expect((await t.services.store("main").read(handle as string)).equals(Buffer.from(output, "utf8"))).toBe(true);
    const fetched = await fetchTool!.execute("c", { handle, selector: "head", lines: 4 });
    expect(fetched.details.error).toBeUndefined();
    const blobs = (
      await fsp.readdir(path.join(t.dir, "agents", "main", "artifacts", "blobs"), {
        recursive: true,
        withFileTypes: true,
      })
    ).filter((e) => e.isFile());
    for (const b of blobs) expect((await fsp.stat(path.join(b.parentPath, b.name))).mode & 0o777).toBe(0o600);
    await t.cleanup();
  });
});
