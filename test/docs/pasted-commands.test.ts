/**
 * The commands we print, pasted: doctor's standalone hint (the built entry, as the host
 * installs it: a 0644 file run through `node`) and its alias, then every `context-ledger`
 * command of the operator guide's shell blocks, in a shell that has that alias, against a
 * temporary host state. Templates (`KEY`, `<handle>`) are not pasteable and are left out;
 * `openclaw ...` commands need a host and are pasted in test/host/install-lines.test.ts.
 */
import { existsSync, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inlineCodeSpans, notRunAsPrinted, pasteableLedgerCommands, runPasted } from "../support/pasted-commands.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(ROOT, "dist", "src", "cli", "main.js");

describe("every command we print runs as printed", () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let doctorOut = "";

  beforeAll(async () => {
    // No silent skip: the printed entry is the built one (`npm run build`, which npm test runs first).
    expect(existsSync(MAIN), `${MAIN} missing: run \`npm run build\``).toBe(true);
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), "cl-pasted-"));
    const state = path.join(dir, "state");
    await fsp.mkdir(path.join(dir, "home"), { recursive: true });
    await fsp.mkdir(state, { recursive: true });
    await fsp.writeFile(
      path.join(state, "openclaw.json"),
      JSON.stringify({
        plugins: { slots: { contextEngine: "context-ledger" }, entries: { "context-ledger": { enabled: true } } },
      }),
    );
    env = {
      PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
      HOME: path.join(dir, "home"),
      OPENCLAW_STATE_DIR: state,
      NO_COLOR: "1",
    };
    const doctor = await runPasted(`node ${MAIN} doctor`, { env, cwd: dir });
    expect(doctor.code, doctor.stderr).toBe(0);
    doctorOut = doctor.stdout;
  });
  afterAll(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  const standalone = (): { command: string; alias: string } => {
    const line = doctorOut.split("\n").find((l) => l.includes("standalone:")) ?? "";
    const spans = inlineCodeSpans(line);
    return {
      command: spans.find((s) => s.startsWith("node ")) ?? "",
      alias: spans.find((s) => s.startsWith("alias context-ledger=")) ?? "",
    };
  };

  it("doctor's standalone command and its alias run as printed", async () => {
    const { command, alias } = standalone();
    expect(command).toBe(`node ${MAIN} status`);
    const direct = await runPasted(command, { env, cwd: dir });
    expect(notRunAsPrinted(direct)).toBeUndefined();
    expect(direct.code).toBe(0);
    const short = await runPasted("context-ledger --help", { env, cwd: dir, prelude: [alias] });
    expect(notRunAsPrinted(short)).toBeUndefined();
    expect(short.code).toBe(0);
    expect(short.stdout).toContain("context-ledger status");
  });

  it("the operator guide's context-ledger commands run as printed with doctor's alias", async () => {
    const guide = await fsp.readFile(path.join(ROOT, "docs", "operator-guide.md"), "utf8");
    const commands = pasteableLedgerCommands(guide);
    expect(commands).toEqual(expect.arrayContaining(["context-ledger doctor", "context-ledger doctor --fix"]));
    const { alias } = standalone();
    // Two at a time (the machine has two cores); order does not matter, each reads the same empty state.
    const queue = [...new Set(commands)];
    const failures: string[] = [];
    await Promise.all(
      [0, 1].map(async () => {
        for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
          const why = notRunAsPrinted(await runPasted(command, { env, cwd: dir, prelude: [alias] }));
          if (why) failures.push(`${command}: ${why}`);
        }
      }),
    );
    expect(failures.sort()).toEqual([]);
  });
});
