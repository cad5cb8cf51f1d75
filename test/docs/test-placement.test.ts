/**
 * The one rule for where a test lives (test/README.md, docs/architecture.md), checked: a test beside the code
 * is named after a module of its folder (or the folder itself) and imports from its folder; a test that drives
 * the whole engine, a real host or the command line as an operator runs it lives under test/, in a listed suite.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TEST_SUFFIX = /(?:\.(?:host|soak|property))?\.test\.ts$/;

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((name) =>
    path.join(dir, name).split(path.sep).join("/"),
  );
}

/** The suites test/README.md lists: `| \`test/<suite>/\` |` rows (one row may name two). */
function listedSuites(): Set<string> {
  const readme = readFileSync(path.join(ROOT, "test/README.md"), "utf8");
  return new Set([...readme.matchAll(/`test\/([\w-]+)\/`/g)].map((m) => m[1] as string));
}

/** Why a test beside the code breaks the rule, or undefined when it follows it. */
function besideTheCode(file: string): string | undefined {
  const folder = path.dirname(file);
  const stem = path.basename(file).replace(TEST_SUFFIX, "");
  const modules = new Set(
    readdirSync(path.join(ROOT, folder))
      .filter((n) => n.endsWith(".ts") && !n.endsWith(".test.ts"))
      .map((n) => n.slice(0, -3)),
  );
  modules.add(path.basename(folder));
  // `store-gc` tests `store` (one aspect of it): the longest module name that is the stem or a dash-prefix of it.
  const named = [...modules].some((m) => stem === m || stem.startsWith(`${m}-`));
  const text = readFileSync(path.join(ROOT, file), "utf8");
  if (!named) return "not named after a module of its folder";
  if (!/["']\.\/[^"']+\.js["']/.test(text)) return "imports nothing from its own folder";
  if (/engine-harness\.js|create-engine\.js/.test(text)) return "drives the whole engine (belongs in test/engine/)";
  return undefined;
}

describe("where a test lives", () => {
  const srcTests = filesUnder("src").filter((f) => f.endsWith(".test.ts"));
  const testFiles = filesUnder("test").filter((f) => f.endsWith(".test.ts"));

  it("finds the tests (the check is not vacuous)", () => {
    expect(srcTests.length).toBeGreaterThan(40);
    expect(testFiles.length).toBeGreaterThan(60);
  });

  it("a test beside the code tests a module of its folder through it, never the whole engine", () => {
    const broken = srcTests.flatMap((f) => {
      const why = besideTheCode(f);
      return why ? [`${f}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("every test under test/ sits in a suite test/README.md lists, none in test/support/", () => {
    const suites = listedSuites();
    expect(suites.has("engine")).toBe(true);
    const outside = testFiles.filter((f) => {
      const suite = f.split("/")[1] ?? "";
      return suite === "support" || !suites.has(suite);
    });
    expect(outside).toEqual([]);
  });
});
