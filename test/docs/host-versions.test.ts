/**
 * `src/host/host-lines.ts` is the one table of what each host line does: every other folder reads a field of that
 * table, never the version. Checked on the syntax tree (comments and prose are free to name versions): outside
 * `src/host/`, no string that reads as a host version or line (`"2026.4"`, `"2026.9.6"`), no year of one compared
 * as a number (`year === 2026`), and no version-comparing helper (`compareVersions`, `semver`).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");
const HOST_VERSION = /^\d{4}\.\d{1,2}(\.|$|-)/;
const VERSION_HELPER = /^(compareVersions?|semver|gte|lte|satisfies)$/i;

/** Each place in `text` (a TypeScript source) where code, not a comment, reads a host version. */
function versionChecksIn(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const where = (node: ts.Node): string =>
    `${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && HOST_VERSION.test(node.text))
      found.push(`${where(node)} "${node.text}"`);
    else if (ts.isTemplateExpression(node) && HOST_VERSION.test(node.head.text))
      found.push(`${where(node)} \`${node.head.text}…\``);
    else if (ts.isNumericLiteral(node) && /^20[2-9]\d$/.test(node.text) && isCompared(node))
      found.push(`${where(node)} ${node.text} compared`);
    else if (ts.isIdentifier(node) && VERSION_HELPER.test(node.text)) found.push(`${where(node)} ${node.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A number that is an operand of a comparison or sits in a version tuple (`[2026, 4, 24]`). */
function isCompared(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isArrayLiteralExpression(parent)) return true;
  if (!ts.isBinaryExpression(parent)) return false;
  const op = parent.operatorToken.kind;
  return [
    ts.SyntaxKind.EqualsEqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsEqualsToken,
    ts.SyntaxKind.EqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsToken,
    ts.SyntaxKind.LessThanToken,
    ts.SyntaxKind.LessThanEqualsToken,
    ts.SyntaxKind.GreaterThanToken,
    ts.SyntaxKind.GreaterThanEqualsToken,
  ].includes(op);
}

describe("host versions are read only in src/host/", () => {
  it("catches each form of a version check (the check is not vacuous)", () => {
    const sample = [
      'if (semantics.line !== "2026.4") x();',
      "const late = line === `2026.9`;",
      "if (year === 2026 && month > 9) y();",
      "const MIN = [2026, 4, 24];",
      "compareVersions(a, b);",
      '// a comment may say "2026.4.24" freely',
      "const n = 2026 + 1;",
    ].join("\n");
    expect(versionChecksIn("sample.ts", sample)).toEqual([
      'sample.ts:1 "2026.4"',
      'sample.ts:2 "2026.9"',
      "sample.ts:3 2026 compared",
      "sample.ts:4 2026 compared",
      "sample.ts:5 compareVersions",
    ]);
  });

  it("no file outside src/host/ compares or names a host version in code", () => {
    const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter(
      (name) => name.endsWith(".ts") && !name.endsWith(".test.ts") && name.split(path.sep)[0] !== "host",
    );
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((name) => versionChecksIn(name, readFileSync(path.join(SRC, name), "utf8")));
    expect(found).toEqual([]);
  });
});
