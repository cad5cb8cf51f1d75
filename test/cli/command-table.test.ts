/**
 * The CLI and the /ledger chat command read one command table (`src/cli/command-table.ts`):
 * every command it lists runs on each surface it claims, and a group dispatches exactly the
 * subcommands its usage line names.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChatCommand } from "../../src/chat/ledger-command.js";
import { LEDGER_COMMANDS } from "../../src/cli/command-table.js";
import { runCli, usage } from "../../src/cli/run-cli.js";
import { createTestEngine } from "../support/engine-harness.js";
import { makeTempState, runWith } from "./cli-fixtures.js";

const onCli = LEDGER_COMMANDS.filter((c) => c.cli);
const onChat = LEDGER_COMMANDS.filter((c) => c.chat);

describe("one command table for the CLI and the chat command", () => {
  let env: NodeJS.ProcessEnv;
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  beforeAll(async () => {
    env = (await makeTempState("table")).env;
    t = await createTestEngine();
  });
  afterAll(async () => t.cleanup());

  it("the table lists commands on both surfaces (the checks below are not vacuous)", () => {
    expect(onCli.map((c) => c.name)).toEqual([
      "status",
      "view",
      "grep",
      "artifact",
      "session",
      "checkpoint",
      "export",
      "doctor",
    ]);
    expect(onChat.map((c) => c.name)).toEqual(["status", "view", "fetch"]);
  });

  it("every CLI command of the table is in the usage and runs its own --help", async () => {
    const listed = [...usage().matchAll(/^ {2}context-ledger (\S+)/gm)].map((m) => m[1]);
    expect(listed).toEqual(onCli.map((c) => c.name));
    for (const { name } of onCli) {
      const help = await runWith(runCli, [name, "--help"], env);
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(new RegExp(`^Usage: context-ledger ${name}\\b`));
    }
  });

  it("a group dispatches exactly the subcommands its usage line names, each with its own --help", async () => {
    const groups = onCli.filter((c) => c.cli?.subcommands);
    expect(groups.map((c) => c.name)).toEqual(["artifact", "session", "checkpoint"]);
    for (const { name, cli } of groups) {
      const subcommands = cli?.subcommands ?? [];
      expect(usage(), name).toContain(`context-ledger ${name.padEnd(11)} ${subcommands.join(" | ")}   `);
      const unknown = await runWith(runCli, [name, "zzzzzz"], env);
      expect(unknown.stderr, name).toContain(`expected one of ${subcommands.join(", ")}\n`);
      const groupHelp = (await runWith(runCli, [name, "--help"], env)).stdout;
      for (const sub of subcommands) {
        expect(groupHelp, `${name} ${sub}`).toMatch(new RegExp(`^ {2}${sub} `, "m"));
        const help = await runWith(runCli, [name, sub, "--help"], env);
        expect(help.code, `${name} ${sub}`).toBe(0);
        expect(help.stdout, `${name} ${sub}`).toMatch(new RegExp(`^Usage: context-ledger ${name} ${sub}\\b`));
      }
    }
  });

  it("every chat command of the table is in /ledger help and answers with its own handler", async () => {
    const help = (await runChatCommand(t.services, { args: "help" })).text;
    const ctx = { agentId: "main", sessionKey: "agent:main:table" };
    const replies = new Set<string>();
    for (const { name, chat } of onChat) {
      expect(help, name).toContain(`\n  /ledger ${chat?.args ?? ""} `);
      const run = await (chat as NonNullable<typeof chat>).load();
      const direct = await run(t.services, { ...ctx, words: [] });
      expect((await runChatCommand(t.services, { ...ctx, args: name })).text, name).toBe(direct);
      replies.add(direct);
    }
    // Each command answers with text of its own: the equality above tells the handlers apart.
    expect(replies.size).toBe(onChat.length);
  });
});
