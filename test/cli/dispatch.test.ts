import { promises as fsp } from "node:fs";
import { describe, expect, it } from "vitest";
import { nestedCommands, runCli } from "../../src/cli/run-cli.js";
import { bloatedSession, makeTempState, runWith, writeHostSession } from "./cli-fixtures.js";

describe("context-ledger <group> dispatch to the operator commands", () => {
  it("runs status, session, checkpoint and doctor through runCli with their exit codes", async () => {
    const { env, state, dir } = await makeTempState("dispatch");
    await writeHostSession(state, "main", bloatedSession({ turns: 2, outputChars: 20_000, answerChars: 100 }));
    const clean = await runWith(runCli, ["session", "clean", "--all", "--json"], env, { stderrTty: true });
    expect(clean.code).toBe(0);
    // Progress goes to a terminal's stderr; stdout stays one JSON document.
    expect(clean.stderr).toContain("cleaned sessions 1/1");
    expect(JSON.parse(clean.stdout).totals).toMatchObject({ sessions: 1, rewrittenEntries: 2, payloads: 4 });
    const status = await runWith(runCli, ["status", "--json"], env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).agents[0].artifacts.count).toBe(4);
    expect((await runWith(runCli, ["checkpoint", "list", "--json"], env)).code).toBe(0);
    const doctor = await runWith(runCli, ["doctor", "--json"], env, { stderrTty: true });
    expect(JSON.parse(doctor.stdout).findings.find((f: { check: string }) => f.check === "artifacts").message).toBe(
      "main: 4 of 4 artifacts verified",
    );
    expect((await runWith(runCli, ["doctor", "--bogus"], env)).code).toBe(1);
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it("a mistyped command or option is refused with the nearest one suggested; a far one only lists them", async () => {
    const { env, dir } = await makeTempState("typo");
    const gc = await runWith(runCli, ["artifact", "gcc"], env);
    expect(gc.code).toBe(1);
    expect(gc.stderr).toContain("unknown command `gcc`; expected one of");
    expect(gc.stderr).toContain("Did you mean `gc`?");
    const group = await runWith(runCli, ["stauts", "--json"], env);
    expect(JSON.parse(group.stdout).error).toMatchObject({
      code: "input_invalid",
      hint: "run `context-ledger status`",
    });
    const far = await runWith(runCli, ["artifact", "zzzzzz"], env);
    expect(far.stderr).not.toContain("Did you mean");
    // A subcommand typed at the top, or mistyped there, is pointed to its group.
    const top = await runWith(runCli, ["gcc"], env);
    expect(top.stderr).toContain("Did you mean `artifact gc`?");
    expect(top.stderr).toContain("next: run `context-ledger artifact gc`");
    expect((await runWith(runCli, ["cleen"], env)).stderr).toContain("Did you mean `session clean`?");
    const option = await runWith(runCli, ["artifact", "gc", "--dryrun", "--json"], env);
    expect(option.code).toBe(1);
    expect(JSON.parse(option.stdout).error.message).toMatch(
      /Unknown option `--dryrun` .*\. Did you mean `--dry-run`\?$/,
    );
    expect((await runWith(runCli, ["artifact", "gc", "--zzzzzz"], env)).stderr).not.toContain("Did you mean");
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it("every subcommand the top level suggests runs in its group", async () => {
    const { env, dir } = await makeTempState("nested");
    for (const full of Object.values(nestedCommands()))
      expect((await runWith(runCli, [...full.split(" "), "--help"], env)).code, full).toBe(0);
    expect(Object.keys(nestedCommands())).toHaveLength(10);
    await fsp.rm(dir, { recursive: true, force: true });
  });
});
