import { spawn } from "node:child_process";
import { existsSync, promises as fsp } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import type { CliIo } from "../../src/cli/core/cli-io.js";
import { makeTempState, runWith } from "./cli-fixtures.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const LEAVES = [
  "status",
  "view",
  "grep",
  "doctor",
  "artifact stash",
  "artifact fetch",
  "artifact peek",
  "artifact list",
  "artifact rm",
  "artifact gc",
  "artifact migrate",
  "session clean",
  "session backups",
  "checkpoint list",
  "checkpoint show",
];

describe("every command: its own --help, JSON errors, the host's program name", () => {
  let t: Awaited<ReturnType<typeof makeTempState>>;
  beforeAll(async () => {
    t = await makeTempState("help");
  });
  afterAll(async () => fsp.rm(t.dir, { recursive: true, force: true }));

  it("`<command> --help` prints that command's usage and runs nothing", async () => {
    for (const leaf of LEAVES) {
      for (const flag of ["--help", "-h"]) {
        const r = await runWith(runCli, [...leaf.split(" "), flag], t.env);
        expect(r.code, leaf).toBe(0);
        expect(r.stdout.split("\n")[0], leaf).toMatch(new RegExp(`^Usage: context-ledger ${leaf}\\b`));
      }
    }
    // Nothing ran: no ledger state was created by any of them.
    expect(existsSync(path.join(t.state, "context-ledger"))).toBe(false);
  });

  it("through the host the usage says `openclaw context-ledger`", async () => {
    const run = async (argv: string[]) => {
      let out = "";
      const io = {
        stdout: { write: (s: string) => ((out += s), true) },
        stderr: { write: () => true },
        stdin: process.stdin,
        env: t.env,
        prog: "openclaw context-ledger",
      } as unknown as CliIo;
      const code = await runCli(argv, io);
      return { code, out };
    };
    expect((await run(["checkpoint", "list", "--help"])).out).toMatch(
      /^Usage: openclaw context-ledger checkpoint list/,
    );
    expect((await run(["--help"])).out).toContain("  openclaw context-ledger view");
  });

  it("--json failures print one error document on stdout with the exit code", async () => {
    const cases: [string[], number, string][] = [
      [["frobnicate", "--json"], 1, "input_invalid"],
      [["artifact", "frobnicate", "--json"], 1, "input_invalid"],
      [["artifact", "fetch", "--bogus", "--json"], 1, "input_invalid"],
      [["artifact", "fetch", `ledger:v1:sha256:${"0".repeat(64)}`, "--json"], 2, "artifact_not_found"],
      [["artifact", "fetch", "nope", "--json"], 4, "handle_invalid"],
      [["artifact", "stash", path.join(t.dir, "missing.txt"), "--json"], 2, "not_found"],
      [["artifact", "stash", "--format", "bogus", "--json"], 1, "input_invalid"],
      [["status", "--agent", "ghost", "--json"], 2, "not_found"],
      [["checkpoint", "show", "--json"], 1, "input_invalid"],
      [["session", "clean", "--json"], 1, "input_invalid"],
      [["grep", "(a+)+", "--json"], 4, "pattern_refused"],
      [["view", "--json"], 1, "input_invalid"],
    ];
    for (const [argv, exit, code] of cases) {
      const r = await runWith(runCli, argv, t.env);
      expect(r.code, argv.join(" ")).toBe(exit);
      const doc = JSON.parse(r.stdout);
      expect(doc, argv.join(" ")).toMatchObject({ ok: false, error: { code, exitCode: exit } });
      expect(doc.error.message.length).toBeGreaterThan(10);
      expect(doc.error.command).toMatch(/^context-ledger/);
    }
    const missing = await runWith(runCli, ["artifact", "stash", path.join(t.dir, "missing.txt")], t.env);
    expect(missing.stderr).toContain(
      `Expected a readable file at \`${path.join(t.dir, "missing.txt")}\`, got no such file`,
    );
  });

  it("a pipe closed early ends the process quietly with exit 0 (no EPIPE trace)", async () => {
    const env = { ...t.env, PATH: process.env.PATH ?? "" };
    const cli = (args: string[], stdin?: string) =>
      new Promise<{ code: number | null; stderr: string; first: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ["--import", path.join(REPO, "scripts/register-ts.mjs"), path.join(REPO, "src/cli/main.ts"), ...args],
          { env, stdio: ["pipe", "pipe", "pipe"] },
        );
        let stderr = "";
        let first = "";
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.stdout.once("data", (d: Buffer) => {
          first = d.toString().slice(0, 200);
          if (stdin === undefined) child.stdout.destroy();
        });
        child.on("close", (code) => resolve({ code, stderr, first }));
        if (stdin !== undefined) child.stdin.end(stdin);
        else child.stdin.end();
      });
    const big = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");
    const stash = await cli(["artifact", "stash"], big);
    const handle = stash.first.trim();
    expect(handle).toMatch(/^ledger:v1:sha256:/);
    const raw = await cli(["artifact", "fetch", handle, "--raw"]);
    expect(raw.first, raw.stderr).toMatch(/^line 0 /);
    expect(raw.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, "")).not.toMatch(/EPIPE|Error/);
    expect(raw.code).toBe(0);
  }, 60_000);
});
