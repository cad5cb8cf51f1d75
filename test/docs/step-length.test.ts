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
