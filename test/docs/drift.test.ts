import { readFileSync, existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readBlock } from "../../src/config/doc-block.js";
import { buildManifest } from "../../src/config/manifest.js";
import { runCli, usage } from "../../src/cli/run-cli.js";
import { debtAdvice } from "../../src/cli/inspect/status.js";
import { HOST_LINE_IDS, HOST_LINES, linesWithTranscriptStore } from "../../src/host/host-lines.js";
import { runWith } from "../cli/cli-fixtures.js";
import { renderConfigReference } from "../../src/config/reference.js";
import { PACKED_TARBALL, PLUGIN_VERSION } from "../../src/version.js";
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
    expect(PACKED_TARBALL).toBe(`${pkg.name}-${pkg.version}.tgz`);
    expect(pkg.openclaw.extensions).toEqual(["./dist/index.js"]);
    expect(pkg.bin["context-ledger"]).toBe("./dist/src/cli/main.js");
    expect(pkg.peerDependencies.openclaw).toBe(">=2026.4.24 <2027");
    expect(pkg.devDependencies.openclaw).toBe("2026.9.6");
  });

  it("docs/operator-guide.md: the config reference block matches the schema", () => {
    expect(readBlock(read("docs/operator-guide.md"))).toBe(renderConfigReference());
  });

  it("README.md: every setting its short table names is a key of the schema, with the schema's default", () => {
    const reference = renderConfigReference();
    const rows = read("README.md")
      .split("\n")
      .map((line) => line.split("|").map((cell) => cell.trim()))
      .filter((cells) => cells.length === 5 && /^`[a-z]/.test(cells[1] ?? "") && /^`/.test(cells[2] ?? ""));
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const [, names = "", defaults = ""] of rows) {
      const keys = names.split(/,\s*/).map((k) => k.replace(/`/g, ""));
      const values = defaults.split(/,\s*/);
      keys.forEach((key, i) => {
        if (key.includes("<")) return;
        const row = reference.split("\n").find((line) => line.startsWith(`| \`${key}\` |`));
        expect(row, key).toBeDefined();
        expect(row?.split(" | ")[2], key).toBe(values[i]);
      });
    }
  });

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
    const lines = ["README.md", "docs/operator-guide.md", "docs/benchmarks.md", "docs/testing.md"]
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

describe("the README is a user's document", () => {
  const readme = read("README.md");
  const lines = readme.trimEnd().split("\n");

  it("is at most 150 lines, with the install section within its first 40", () => {
    expect(lines.length).toBeLessThanOrEqual(150);
    expect(lines.findIndex((line) => /^## Install/.test(line))).toBeLessThan(40);
  });

  it("holds no dated run notes, load averages or test names, and links the glossary", () => {
    expect(readme).not.toMatch(/\b20\d\d-\d\d-\d\d\b/);
    expect(readme).not.toMatch(/load average/i);
    const scenarioNames = [
      ...read("test/host/scenarios/index.ts").matchAll(/"\.\/([a-z0-9]+(?:-[a-z0-9]+)+)\.js"/g),
    ].map((m) => m[1] ?? "");
    expect(scenarioNames.length).toBeGreaterThan(3);
    for (const name of scenarioNames) expect(readme, name).not.toContain(name);
    expect(readme).toContain("(docs/glossary.md)");
  });

  it("every relative link of the README and the glossary points at a file that exists", () => {
    for (const file of ["README.md", "docs/glossary.md", "docs/testing.md"]) {
      const base = new URL(file, root);
      for (const [, target] of read(file).matchAll(/\]\(([^)#:]+)(?:#[^)]*)?\)/g))
        expect(existsSync(new URL(target ?? "", base)), `${file} -> ${target}`).toBe(true);
    }
  });
});
