/**
 * The install commands the docs give are the ones test/host/install-path.test.ts proves per
 * line (test/host/install-commands.ts); `documentedInstallDrift` reads any Markdown (the README too).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HOST_LINES } from "../host/host-install.js";
import { documentedInstallDrift } from "../host/install-commands.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("install commands in the docs", () => {
  it("the operator guide gives each line's proven command and no other", async () => {
    const guide = await fsp.readFile(path.join(ROOT, "docs", "operator-guide.md"), "utf8");
    expect(documentedInstallDrift(guide)).toEqual([]);
  });

  it("a document with a missing line or a wrong flag is caught", () => {
    const doc = ["```sh", "openclaw plugins install ./x.tgz --dangerously-force-unsafe-install", "```"].join("\n");
    const problems = documentedInstallDrift(doc);
    expect(problems).toHaveLength(HOST_LINES.length + 1);
    expect(problems.at(-1)).toBe(
      "`openclaw plugins install ./x.tgz --dangerously-force-unsafe-install` is no line's command",
    );
  });
});
