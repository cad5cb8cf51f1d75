/**
 * Assembly, compaction and the summary's own pass read as lists of named steps: each stays under 80 lines, so a new
 * concern becomes a step of its own (docs/architecture.md) instead of one more stretch of a long body.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");
const MAX_LINES = 80;

/** Lines of the function declaration `name` in `file` (signature to closing brace), or undefined when absent. */
function linesOf(file: string, name: string): number | undefined {
  const source = ts.createSourceFile(file, readFileSync(path.join(SRC, file), "utf8"), ts.ScriptTarget.Latest, true);
  const found = source.statements.find((s) => ts.isFunctionDeclaration(s) && s.name?.text === name);
  if (!found) return undefined;
  const line = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line;
  return line(found.end) - line(found.getStart(source)) + 1;
}

describe("named steps", () => {
  for (const [file, name] of [
    ["assembly/assemble-view.ts", "assembleView"],
    ["maintenance/compact.ts", "compactSession"],
    ["engine/view-summary.ts", "ownSummary"],
  ] as const) {
    it(`${name} is under ${MAX_LINES} lines`, () => {
      const lines = linesOf(file, name);
      expect(lines, `${name} not found in ${file}`).toBeDefined();
      expect(lines).toBeLessThan(MAX_LINES);
    });
  }
});

describe("the engine object only delegates", () => {
  const file = "engine/create-engine.ts";
  const text = readFileSync(path.join(SRC, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line;
  /** The members of the object literal `createEngine` returns, with their lengths in lines. */
  const methods = (): [string, number][] => {
    const factory = source.statements.find((s) => ts.isFunctionDeclaration(s) && s.name?.text === "createEngine");
    const body = factory && ts.isFunctionDeclaration(factory) ? factory.body : undefined;
    const returned = body?.statements.find(ts.isReturnStatement)?.expression;
    if (!returned || !ts.isObjectLiteralExpression(returned)) return [];
    return returned.properties.map((p) => [p.name?.getText(source) ?? "?", line(p.end) - line(p.getStart(source)) + 1]);
  };

  it("engine/create-engine.ts stays under 200 lines", () => {
    expect(text.split("\n").length).toBeLessThan(200);
  });

  it("no engine method is longer than 15 lines", () => {
    const found = methods();
    expect(found.map(([name]) => name)).toEqual(expect.arrayContaining(["assemble", "maintain", "compact", "dispose"]));
    expect(found.filter(([, lines]) => lines > 15)).toEqual([]);
  });
});
