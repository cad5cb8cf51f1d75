/**
 * The install commands the docs give are the ones test/host/install-path.test.ts proves per
 * line (test/host/install-commands.ts); `documentedInstallDrift` reads any Markdown (the README too).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HOST_LINES } from "../host/host-install.js";
import { documentedInstallDrift, documentedUninstallDrift, installCommand } from "../host/install-commands.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("install commands in the docs", () => {
  it("the operator guide gives each line's proven command and no other", async () => {
    const guide = await fsp.readFile(path.join(ROOT, "docs", "operator-guide.md"), "utf8");
    expect(documentedInstallDrift(guide)).toEqual([]);
  });

  it("the operator guide gives the proven uninstall command and the stubs' fallback command, and no other", async () => {
    const guide = await fsp.readFile(path.join(ROOT, "docs", "operator-guide.md"), "utf8");
    expect(documentedUninstallDrift(guide)).toEqual([]);
    const doc = [
      "```sh",
      "openclaw plugins uninstall context-ledger",
      "npx --package ./x.tgz context-ledger export",
      "```",
    ];
    expect(documentedUninstallDrift(doc.join("\n"))).toHaveLength(5);
  });

  it("the README's install table gives each line, by its range, the proven command", async () => {
    const readme = await fsp.readFile(path.join(ROOT, "README.md"), "utf8");
    expect(documentedInstallDrift(readme)).toEqual([]);
    // Rows like "| 2026.4.24 - 2026.7.x | `openclaw plugins install …` |": a release, or a range whose ends may be
    // a line's `.x`.
    const rows = [
      ...readme.matchAll(/^\| (2026\.[\d.x]+)(?: - (2026\.[\d.x]+))? +\| `(openclaw plugins install [^`]+)` +\|/gm),
    ];
    const key = (v: string) => v.split(".").map((p) => (p === "x" ? Infinity : Number(p)));
    const atMost = (a: number[], b: number[]) => {
      for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
      return true;
    };
    for (const version of HOST_LINES) {
      const v = key(version);
      const covering = rows.filter(([, from = "", to]) => {
        const low = key(from.replace(/\.x$/, ".0"));
        return atMost(low, v) && atMost(v, key(to ?? from));
      });
      expect(
        covering.map((r) => r[3]),
        version,
      ).toEqual([installCommand(version)]);
    }
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
