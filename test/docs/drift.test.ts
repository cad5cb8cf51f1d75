import { readFileSync, existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readBlock } from "../../src/config/doc-block.js";
import { buildManifest } from "../../src/config/manifest.js";
import { runCli, usage } from "../../src/cli/run-cli.js";
import { debtAdvice } from "../../src/cli/status.js";
import { HOST_LINE_IDS, HOST_LINES, linesWithTranscriptStore } from "../../src/host/host-lines.js";
import { runWith } from "../cli/cli-fixtures.js";
import { renderConfigReference } from "../../src/config/reference.js";
import { PLUGIN_VERSION } from "../../src/version.js";
import { parseDemoArgs } from "../../scripts/demo-cli.js";

const root = new URL("../../", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), "utf8");

describe("generated artifacts stay in step with the code", () => {
  it("openclaw.plugin.json equals the manifest generated from the zod schema (npm run gen:manifest)", () => {
    expect(JSON.parse(read("openclaw.plugin.json"))).toEqual(buildManifest());
  });

  it("package.json: version, extension entry and bin agree with the code", () => {
    const pkg = JSON.parse(read("package.json"));
    expect(pkg.version).toBe(PLUGIN_VERSION);
    expect(pkg.name).toBe("openclaw-context-ledger");
    expect(pkg.openclaw.extensions).toEqual(["./dist/index.js"]);
    expect(pkg.bin["context-ledger"]).toBe("./dist/src/cli/main.js");
    expect(pkg.peerDependencies.openclaw).toBe(">=2026.4.24 <2027");
    expect(pkg.devDependencies.openclaw).toBe("2026.9.6");
  });

  for (const file of ["README.md", "docs/operator-guide.md"]) {
    it(`${file}: the config reference block matches the schema`, () => {
      if (!existsSync(new URL(file, root))) return expect(file).toBe("docs/operator-guide.md");
      const block = readBlock(read(file));
      if (file === "README.md") expect(block).toBeDefined();
      if (block !== undefined) expect(block).toBe(renderConfigReference());
    });
  }

  it("which lines keep JSONL or SQLite transcripts: session clean --help and the operator guide say what the table says", async () => {
    const jsonl = linesWithTranscriptStore("jsonl");
    const sqlite = linesWithTranscriptStore("sqlite");
    expect([jsonl, sqlite]).toEqual(["2026.4-2026.7", "2026.8-2026.9"]);
    const help = (await runWith(runCli, ["session", "clean", "--help"], { PATH: "" })).stdout;
    expect(help).toContain(`JSONL sessions (hosts ${jsonl})`);
    expect(help).toContain(`${sqlite} keep transcripts in SQLite`);
    const guide = read("docs/operator-guide.md").replace(/ – /g, "-");
    expect(guide).toContain(`JSONL host (${jsonl})`);
    expect(guide).toContain(`SQLite host (${sqlite})`);
  });

  it("which SQLite lines maintain() pays down: README, operator guide and status's advice say what the table says", () => {
    const sqlite = HOST_LINE_IDS.filter((l) => HOST_LINES[l].transcriptStore === "sqlite");
    const rewritten = sqlite.filter((l) => HOST_LINES[l].sqliteRewrite);
    expect([rewritten, sqlite.filter((l) => !rewritten.includes(l))]).toEqual([["2026.9"], ["2026.8"]]);
    const flat = (file: string) => read(file).replace(/\s+/g, " ");
    expect(flat("README.md")).toContain(
      "On 2026.9.x `maintain()` pays tool outputs down in the host's SQLite transcript; on 2026.8.x it does not",
    );
    const guide = flat("docs/operator-guide.md");
    expect(guide).toContain("On 2026.9.x the engine's `maintain()` pays oversized tool outputs down there");
    expect(guide).toContain("On 2026.8.x it does not rewrite");
    expect(debtAdvice(true)).toContain("maintain() pays tool outputs down on 2026.9.x (not on 2026.8.x)");
    // No sentence may group 9.x with the line paydown leaves alone.
    for (const file of ["README.md", "docs/operator-guide.md", "docs/design.md", "docs/host-lines.md"])
      expect(
        flat(file)
          .split(/(?<=\.) /)
          .filter((x) => /8\.x-9\.x.*(not rewritten|cannot rewrite)/.test(x)),
        file,
      ).toEqual([]);
  });

  it("every command `context-ledger --help` lists is in the README's command block and has a guide section", () => {
    const commands = [...usage().matchAll(/^ {2}context-ledger (\S+)/gm)].map((m) => m[1]);
    expect(commands).toHaveLength(8);
    const block = /## Command line[\s\S]*?```\n([\s\S]*?)```/.exec(read("README.md"))?.[1] ?? "";
    const guide = read("docs/operator-guide.md");
    for (const command of commands) {
      expect(block, command).toMatch(new RegExp(`^context-ledger ${command}\\b`, "m"));
      expect(guide, command).toContain(`### \`context-ledger ${command}`);
    }
    // And the block names no command the CLI does not have.
    expect(
      [...block.matchAll(/^context-ledger (\S+)/gm)].map((m) => m[1]).filter((c) => !commands.includes(c)),
    ).toEqual([]);
  });

  it("every `npm run demo -- …` line of the README and the guides is one the demo accepts", () => {
    const lines = ["README.md", "docs/operator-guide.md", "docs/benchmarks.md"]
      .filter((file) => existsSync(new URL(file, root)))
      .flatMap((file) => [...read(file).matchAll(/npm run demo -- ([^#`\n]+)/g)].map((m) => (m[1] ?? "").trim()));
    expect(lines.length).toBeGreaterThanOrEqual(6);
    // Placeholders (URL, ID, FILE.json paths) stand for any value; the flags must exist and take what is given.
    for (const line of lines) {
      const argv = line.replace(/\bURL\b/g, "http://127.0.0.1:8000/v1").split(/\s+/);
      expect(parseDemoArgs(argv), line).not.toMatchObject({ kind: "error" });
    }
  });
});
