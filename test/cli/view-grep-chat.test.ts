import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChatCommand } from "../../src/chat/ledger-command.js";
import { registerChatCommand } from "../../src/chat/register-chat-command.js";
import { runCli } from "../../src/cli/run-cli.js";
import { buildStub } from "../../src/results/stub.js";
import { assistant, call, createTestEngine, conversation, logText, result, user } from "../support/engine-harness.js";
import { runWith } from "./cli-fixtures.js";

const SESSION = { sessionId: "s-view", sessionKey: "agent:main:view" };

describe("view, grep and /ledger through a real assemble", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  let env: NodeJS.ProcessEnv;
  const cli = (argv: string[]) => runWith(runCli, [...argv, "--state-dir", t.dir], env);

  beforeAll(async () => {
    t = await createTestEngine();
    env = { HOME: path.join(t.dir, "home"), OPENCLAW_STATE_DIR: path.join(t.dir, "oc"), PATH: "" };
    const messages = [...conversation(3, 30_000), user("what failed in batch 2017?")];
    await t.engine.assemble({ ...SESSION, messages: messages.slice(0, 5), tokenBudget: 8_000 });
    await t.engine.assemble({ ...SESSION, messages, tokenBudget: 8_000 });
    // dispose flushes the background view write, as the host's dispose does
    await t.engine.dispose();
  });
  afterAll(async () => t.cleanup());

  it("view --json shows what was kept, offloaded (handles and sizes), budget, estimate, cache state and debt", async () => {
    const r = await cli(["view", "--session", SESSION.sessionKey, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.schema).toBe("context-ledger.view.v1");
    const v = doc.view;
    expect(v).toMatchObject({
      agentId: "main",
      sessionKey: SESSION.sessionKey,
      sessionId: SESSION.sessionId,
      turn: 1,
      budget: { tokens: 8_000 },
    });
    expect(v.plan.total).toBe(13);
    expect(v.plan.kept).toBe(v.messages.length);
    expect(v.estimatedTokens).toBeGreaterThan(0);
    expect(v.estimatedTokens).toBeLessThanOrEqual(8_000);
    expect(v.offloaded.length).toBeGreaterThan(0);
    for (const o of v.offloaded) {
      expect(o.handle).toMatch(/^ledger:v1:sha256:[0-9a-f]{64}$/);
      expect(o.bytes).toBe(30_000);
      expect(o.toolName).toBe("exec");
    }
    expect(typeof v.plan.replanned).toBe("boolean");
    expect(v.debt.promptBudget).toBe(8_000);
    expect(v.messages.at(-1)).toMatchObject({ role: "user", preview: "what failed in batch 2017?" });
    // Same turn assembled twice: one record, the newest (all 13 messages).
    expect(doc.turns).toEqual([1]);
  });

  it("view as text and as a self-contained HTML page; unknown session and turn name what exists", async () => {
    const text = await cli(["view", "--session", SESSION.sessionKey]);
    expect(text.stdout).toContain("cache-stable: ");
    expect(text.stdout).toMatch(/Offloaded \(originals in the store/);
    const file = path.join(t.dir, "view.html");
    expect((await cli(["view", "--session", SESSION.sessionKey, "--html", file])).code).toBe(0);
    const html = await fsp.readFile(file, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|https?:\/\//);
    const missing = await cli(["view", "--session", "agent:main:nope", "--json"]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, error: { code: "not_found", exitCode: 2 } });
    expect(JSON.parse(missing.stdout).error.message).toContain(SESSION.sessionKey);
    const turn = await cli(["view", "--session", SESSION.sessionKey, "--turn", "9"]);
    expect(turn.code).toBe(2);
    expect(turn.stderr).toContain("recorded turns: 1");
  });

  it("grep finds a line in the offloaded outputs, bounded, and refuses a catastrophic pattern", async () => {
    const r = await cli(["grep", "processed batch 2017 ", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ schema: "context-ledger.grep.v1", artifactsMatched: 1, matches: 1, timedOut: false });
    expect(doc.hits[0].text).toMatch(/^\d+:.*processed batch 2017 /);
    const bad = await cli(["grep", "(a+)+$", "--json"]);
    expect(bad.code).toBe(4);
    expect(JSON.parse(bad.stdout).error.code).toBe("pattern_refused");
    const none = await cli(["grep", "nothing-like-this", "--session", SESSION.sessionKey]);
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/^0 matches in 0 artifacts/);
  });

  it("/ledger status, view and fetch lines A-B answer in chat; registration is idempotent", async () => {
    const services = t.services;
    const status = await runChatCommand(services, { agentId: "main", sessionKey: SESSION.sessionKey, args: "status" });
    expect(status.text).toMatch(/Prompt [\d,]+ of 8,000 budget tokens/);
    const view = await runChatCommand(services, { agentId: "main", sessionKey: SESSION.sessionKey, args: "view" });
    expect(view.text).toContain("What the model saw · turn 1");
    const handle = /offloaded (ledger:v1:sha256:[0-9a-f]{64})/.exec(view.text)?.[1];
    expect(handle).toBeDefined();
    const fetched = await runChatCommand(services, {
      agentId: "main",
      sessionKey: SESSION.sessionKey,
      args: `fetch ${handle} lines 2-3`,
    });
    expect(fetched.text.split("\n").slice(1)).toHaveLength(2);
    expect(fetched.text).toMatch(/^\[context-ledger fetch ledger:v1:sha256:/);
    expect(
      (
        await runChatCommand(services, {
          agentId: "main",
          sessionKey: SESSION.sessionKey,
          args: `fetch ${handle} lines x`,
        })
      ).text,
    ).toContain("Expected `lines A-B`");
    // A chat that names no agent reads no store (there is no fallback to `main`).
    expect((await runChatCommand(services, { args: `fetch ${handle} lines 2-3` })).text).toMatch(/names no agent/);
    // Another session of the same agent may not read this session's outputs in chat.
    const other = await runChatCommand(services, {
      agentId: "main",
      sessionKey: "agent:main:other",
      args: `fetch ${handle}`,
    });
    expect(other.text).toMatch(/No output of this chat's session has that handle/);
    const typo = await runChatCommand(services, { agentId: "main", sessionKey: SESSION.sessionKey, args: "stauts" });
    expect(typo.text).toMatch(
      /^Unknown \/ledger command `stauts`; expected status, view or fetch\. Did you mean `\/ledger status`\?\n/,
    );
    expect(typo.text).toContain("/ledger fetch HANDLE lines A-B");
    // A typo is answered as one even in a chat that names no agent.
    expect((await runChatCommand(services, { args: "veiw" })).text).toContain("Did you mean `/ledger view`?");
    expect((await runChatCommand(services, { args: "zzzzzz" })).text).not.toContain("Did you mean");
    const registered: unknown[] = [];
    const api = { registerCommand: (c: unknown) => registered.push(c) } as never;
    registerChatCommand(api, services);
    registerChatCommand(api, services);
    expect(registered).toHaveLength(1);
  });
});

describe("view records keep what the model was shown", () => {
  it("lists outputs offloaded before the assembly (stubs already in the transcript) with full handles", async () => {
    const t = await createTestEngine();
    const S = { sessionId: "s-stubbed", sessionKey: "agent:main:stubbed" };
    const original = logText(30_000, 7);
    const { handle } = await t.services.store("main").stash(original, { origin: { toolName: "exec" } } as never);
    // The transcript as paydown leaves it: the tool result is a stub, nothing is left to offload.
    const messages = [
      user("run the build"),
      call("c1", "exec", { command: "make" }),
      result("c1", "exec", buildStub({ handle, text: original, label: "exec" })),
      assistant("It built."),
      user("what failed?"),
    ];
    await t.engine.assemble({ ...S, messages, tokenBudget: 8_000 });
    await t.engine.dispose();
    const env = { HOME: path.join(t.dir, "home"), PATH: "" };
    const run = (argv: string[]) => runWith(runCli, [...argv, "--session", S.sessionKey, "--state-dir", t.dir], env);
    const json = JSON.parse((await run(["view", "--json"])).stdout);
    expect(json.view.offloaded).toEqual([{ handle, bytes: 30_000, lines: expect.any(Number), toolName: "exec" }]);
    const text = (await run(["view"])).stdout;
    expect(text).toContain("1 output offloaded");
    // Every handle the text shows is whole: pasted into fetch as is, it answers.
    const shown = [...text.matchAll(/ledger:v1:sha256:[0-9a-f]*/g)].map((m) => m[0]);
    expect(new Set(shown)).toEqual(new Set([handle]));
    const fetched = await runWith(
      runCli,
      ["artifact", "fetch", shown[0] ?? "", "--lines", "1-2", "--state-dir", t.dir],
      env,
    );
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout).toBe(`${original.split("\n").slice(0, 2).join("\n")}\n`);
    const chat = await runChatCommand(t.services, { agentId: "main", sessionKey: S.sessionKey, args: "view" });
    expect(chat.text).toContain(`offloaded ${handle}`);
    await t.cleanup();
  });

  it("an empty or shorter assembly later in the same turn does not replace the fullest one", async () => {
    const t = await createTestEngine();
    const S = { sessionId: "s-probe", sessionKey: "agent:main:probe" };
    const messages = [...conversation(2, 30_000), user("next?")];
    await t.engine.assemble({ ...S, messages, tokenBudget: 8_000 });
    await t.engine.assemble({ ...S, messages: messages.slice(0, 3), tokenBudget: 8_000 });
    await t.engine.assemble({ ...S, messages: [], tokenBudget: 8_000 });
    await t.engine.dispose();
    const env = { HOME: path.join(t.dir, "home"), PATH: "" };
    const r = await runWith(runCli, ["view", "--session", S.sessionKey, "--json", "--state-dir", t.dir], env);
    expect(JSON.parse(r.stdout).view.plan.total).toBe(messages.length);
    await t.cleanup();
  });
});

describe("figures of the turn's main prompt", () => {
  it("status, /ledger status and view show the turn's largest-budget assembly and label the host's in-turn ones", async () => {
    // 2026.9.6: one assemble before the turn, then the tool loop's, on the handed-back view, with the budget less
    // what the turn appended: the first (the turn's first request) has the largest, the last one falls to 1.
    const t = await createTestEngine({}, "2026.9");
    const S = { sessionId: "s-loop", sessionKey: "agent:main:loop" };
    const messages = [...conversation(3, 30_000)];
    const before = (await t.engine.assemble({ ...S, messages, tokenBudget: 17_979, prompt: "next?" })) as {
      messages: unknown[];
    };
    await t.engine.assemble({ ...S, messages: before.messages, tokenBudget: 31_964, prompt: "next?" });
    await t.engine.assemble({ ...S, messages: before.messages, tokenBudget: 1, prompt: "next?" });
    await t.engine.dispose();
    const env = { HOME: path.join(t.dir, "home"), PATH: "" };
    const cli = (argv: string[]) => runWith(runCli, [...argv, "--state-dir", t.dir], env);
    const status = JSON.parse((await cli(["status", "--session", S.sessionKey, "--json"])).stdout);
    const session = status.agents[0].sessions[0];
    expect(session.promptBudget).toBe(31_964);
    expect(session.assembledTokens).toBeGreaterThan(512);
    expect(session.hostInTurnAssembles).toEqual({ count: 2, smallestBudget: 512 });
    const chat = (await runChatCommand(t.services, { agentId: "main", sessionKey: S.sessionKey, args: "status" })).text;
    expect(chat).toMatch(/Prompt [\d,]+ of 31,964 budget tokens; raw history/);
    expect(chat).toContain(
      "(the turn's main prompt; the host's 2 other assembles for the turn had budgets down to 512)",
    );
    const view = JSON.parse((await cli(["view", "--session", S.sessionKey, "--json"])).stdout).view;
    expect(view.budget.tokens).toBe(31_964);
    expect(view.debt.promptBudget).toBe(31_964);
    const text = (await cli(["view", "--session", S.sessionKey])).stdout;
    expect(text).toMatch(/Budget 31,964 tokens/);
    expect(text).toContain("the host's 2 other assembles for the turn (budgets down to 512) are not shown");
    await t.cleanup();
  });
});

describe("view marks offloaded only what is offloaded", () => {
  it("a user or assistant message that mentions a handle is shown with its text, a stubbed tool result as offloaded", async () => {
    const t = await createTestEngine();
    const S = { sessionId: "s-mention", sessionKey: "agent:main:mention" };
    const original = logText(30_000, 3);
    const { handle } = await t.services.store("main").stash(original, { origin: { toolName: "exec" } } as never);
    const messages = [
      user("run the build"),
      call("c1", "exec", { command: "make" }),
      result("c1", "exec", buildStub({ handle, text: original, label: "exec" })),
      assistant(`The log is stored as ${handle}.`),
      user(`Show me lines 1-5 of ${handle} please`),
    ];
    await t.engine.assemble({ ...S, messages, tokenBudget: 8_000 });
    await t.engine.dispose();
    const env = { HOME: path.join(t.dir, "home"), PATH: "" };
    const run = (argv: string[]) => runWith(runCli, [...argv, "--session", S.sessionKey, "--state-dir", t.dir], env);
    const view = JSON.parse((await run(["view", "--json"])).stdout).view as {
      messages: { role: string; offloaded?: boolean; handles?: string[] }[];
    };
    expect(view.messages.map((m) => [m.role, m.offloaded === true])).toEqual([
      ["user", false],
      ["assistant", false],
      ["toolResult", true],
      ["assistant", false],
      ["user", false],
    ]);
    const rows = (await run(["view"])).stdout
      .split("\n")
      .filter((l) => /^\s+\d+\s+(user|assistant|toolResult)\s/.test(l));
    expect(rows.map((l) => /offloaded ledger:v1:sha256:/.test(l))).toEqual([false, false, true, false, false]);
    expect(rows[4]).toContain("Show me lines 1-5 of");
    await t.cleanup();
  });
});

describe("handles a person can type in chat", () => {
  it("a stub's chat hint, pasted into the chat, gives the output back; errors speak the chat's syntax", async () => {
    const t = await createTestEngine();
    const S = { sessionId: "s-typed", sessionKey: "agent:main:typed" };
    const original = logText(30_000, 11);
    const { handle } = await t.services.store("main").stash(original, {
      origin: { toolName: "exec", sessionKey: S.sessionKey },
    } as never);
    // The stub paydown and session clean write into the host's transcript.
    const stub = buildStub({ handle, text: original, label: "exec", offRamp: true });
    const hint = /In chat: `\/ledger (fetch [^`]+)`/.exec(stub)?.[1];
    expect(hint).toMatch(/^fetch [0-9a-f]{12}$/);
    const chat = (args: string, sessionKey = S.sessionKey) =>
      runChatCommand(t.services, { agentId: "main", sessionKey, args }).then((r) => r.text);
    const fetched = await chat(`${hint} tail 3`);
    expect(fetched.split("\n").slice(1).join("\n")).toBe(original.split("\n").slice(-3).join("\n"));
    expect(fetched).toContain(`[context-ledger fetch ${handle}`);
    // Another session of the agent does not see it, by prefix as by whole handle.
    expect(await chat(`${hint}`, "agent:main:other")).toContain(
      `Expected an output of this chat's session whose handle starts with \`${hint?.slice(6)}\`, got none`,
    );
    const backwards = await chat(`${hint} lines 5-2`);
    expect(backwards).toContain("Expected `lines A-B` with 1 ≤ A ≤ B (e.g. lines 2-5), got `lines 5-2`");
    expect(backwards).toContain("Usage: /ledger fetch HANDLE [lines A-B");
    expect(backwards).not.toMatch(/"selector"|"handle"|"kind"/);
    expect(await chat(`${hint} tail x`)).toContain("Expected `tail N` with N a number of lines from 1");
    const refused = await chat(`${hint} grep (a+)+$`);
    expect(refused).toMatch(/^\/ledger fetch: /);
    expect(refused).not.toMatch(/"selector"|"handle"|Accepted:/);
    expect(await chat("fetch 3f2a9c")).toContain("Expected at least 8 hex digits of a handle");
    expect(await chat("fetch HANDLE")).toContain("got non-hex `H`");
    await t.cleanup();
  });

  it("a prefix that starts several handles the chat may read is refused with the candidates listed", async () => {
    const t = await createTestEngine();
    const S = { sessionId: "s-twins", sessionKey: "agent:main:twins" };
    const twins = ["3f2a9c0d11", "3f2a9c0d22"].map((hex) => `ledger:v1:sha256:${hex.padEnd(64, "0")}`);
    await t.engine.assemble({ ...S, messages: [user(`compare ${twins[0]} with ${twins[1]}`)], tokenBudget: 8_000 });
    await t.engine.dispose();
    const text = (
      await runChatCommand(t.services, { agentId: "main", sessionKey: S.sessionKey, args: "fetch 3f2a9c0d" })
    ).text;
    expect(text).toContain("Expected `3f2a9c0d` to start one handle of this chat's session, got 2:");
    for (const h of twins) expect(text).toContain(h);
    await t.cleanup();
  });
});

describe("/ledger status for an agent context-ledger is off for", () => {
  it("says the agent is disabled instead of showing an empty session", async () => {
    const t = await createTestEngine({ agents: { ops: { enabled: false } } });
    const text = (await runChatCommand(t.services, { agentId: "ops", sessionKey: "agent:ops:main", args: "status" }))
      .text;
    expect(text).toMatch(/^context-ledger · agent ops: 0 tool outputs offloaded/);
    expect(text).toContain("context-ledger is disabled for agent ops");
    expect(text).not.toContain("no turn assembled");
    const main = (await runChatCommand(t.services, { agentId: "main", sessionKey: "agent:main:main", args: "status" }))
      .text;
    expect(main).not.toContain("disabled");
    await t.cleanup();
  });

  it("says the engine is off, with the command that turns it on, when the slot selects another engine", async () => {
    const t = await createTestEngine({});
    await t.engine.assemble({ ...SESSION, messages: conversation(3, 3_000), tokenBudget: 8_000 });
    await t.engine.dispose();
    const ask = (config: Record<string, unknown>) =>
      runChatCommand(t.services, { agentId: "main", sessionKey: SESSION.sessionKey, args: "status", config });
    const on = (await ask({ plugins: { slots: { contextEngine: "context-ledger" } } })).text;
    expect(on).toContain(`Session ${SESSION.sessionKey}: `);
    expect(on).not.toContain("is off");
    const off = (await ask({ plugins: { slots: { contextEngine: "legacy" } } })).text;
    expect(off).toMatch(/^context-ledger · agent main: /);
    expect(off).toContain(
      'context-ledger is off: plugins.slots.contextEngine is "legacy", so the host assembles this chat\'s prompts with "legacy".',
    );
    expect(off).toContain("To switch it on: `openclaw config set plugins.slots.contextEngine context-ledger`");
    expect(off).not.toContain("Session ");
    expect((await ask({})).text).toContain("plugins.slots.contextEngine is unset");
    await t.cleanup();
  });
});
