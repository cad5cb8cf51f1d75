import { readFileSync, existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readBlock } from "../../src/config/doc-block.js";
import { buildManifest } from "../../src/config/manifest.js";
import { runCli } from "../../src/cli/run-cli.js";
import { linesWithTranscriptStore } from "../../src/host/host-lines.js";
import { runWith } from "../cli/cli-fixtures.js";
import { renderConfigReference } from "../../src/config/reference.js";
import { PLUGIN_VERSION } from "../../src/version.js";

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
});
