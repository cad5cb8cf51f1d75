/**
 * The layout's promise, checked: every folder of src/ imports only downward. A new
 * cycle between files, or between folders (a file at the root of src/ counts as its
 * own folder: plugin.ts sits on top, errors.ts and version.ts at the bottom), fails
 * here with the folders and one import that closes it. Imports are read with
 * TypeScript's own pre-processor (type imports and re-exports included).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => path.join(SRC, name));
}

/** File → the src files it imports (relative specifiers only). */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const deps = info.importedFiles
      .filter((r) => r.fileName.startsWith("."))
      .map((r) => path.resolve(path.dirname(file), r.fileName.replace(/\.js$/, ".ts")));
    graph.set(file, deps);
  }
  return graph;
}

function folderOf(file: string): string {
  const dir = path.relative(SRC, path.dirname(file));
  return dir || path.basename(file);
}

/** Strongly connected components with more than one node (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("src/ imports only downward", () => {
  const files = fileGraph();

  it("reads the whole tree (the check is not vacuous)", () => {
    expect(files.size).toBeGreaterThan(100);
    const edges = [...files.values()].reduce((n, deps) => n + deps.length, 0);
    expect(edges).toBeGreaterThan(300);
  });

  it("no import cycle between files", () => {
    expect(cycles(files).map((c) => c.map((f) => path.relative(SRC, f)))).toEqual([]);
  });

  it("no import cycle between folders", () => {
    const folders = new Map<string, Set<string>>();
    const witness = new Map<string, string>();
    for (const [file, deps] of files) {
      const from = folderOf(file);
      if (!folders.has(from)) folders.set(from, new Set());
      for (const dep of deps) {
        const to = folderOf(dep);
        if (to === from || !files.has(dep)) continue;
        folders.get(from)?.add(to);
        witness.set(`${from}>${to}`, `${path.relative(SRC, file)} -> ${path.relative(SRC, dep)}`);
      }
    }
    const graph = new Map([...folders].map(([k, v]) => [k, [...v]]));
    const found = cycles(graph).map((c) => ({
      folders: c,
      imports: c.flatMap((a) => c.map((b) => witness.get(`${a}>${b}`)).filter(Boolean)),
    }));
    expect(found).toEqual([]);
  });
});

/**
 * The layers of src/, top to bottom, as docs/architecture.md draws them: a folder imports only
 * folders below its own layer (files at the root of src/ count as their own folder). Folders of one layer
 * know nothing of each other: the CLI works on stored state, never on a live engine.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["plugin.ts", "public-api.ts"],
  ["chat", "page"],
  ["cli", "engine"],
  ["cli/doctor"],
  ["cli/artifacts", "cli/inspect", "cli/sessions"],
  ["cli/core"],
  ["assembly", "maintenance", "turns"],
  ["capture/full-exec"],
  ["capture", "subagents"],
  ["retrieval", "runtime", "summary", "cli/sessions/clean"],
  ["results", "state"],
  ["artifacts", "window"],
  ["tokens", "config", "fs"],
  ["host"],
  ["json.ts", "safe-regex.ts"],
  ["errors.ts", "version.ts"],
];

describe("src/ folders keep their layer order", () => {
  const files = fileGraph();
  const rank = new Map(LAYERS.flatMap((layer, i) => layer.map((folder) => [folder, i] as const)));

  it("every folder of src/ has a layer", () => {
    const unplaced = [...new Set([...files.keys()].map(folderOf))].filter((f) => !rank.has(f)).sort();
    expect(unplaced).toEqual([]);
  });

  it("no import points up a layer or sideways within one", () => {
    const upward: string[] = [];
    for (const [file, deps] of files) {
      const from = rank.get(folderOf(file));
      for (const dep of deps) {
        const to = rank.get(folderOf(dep));
        const other = folderOf(dep) !== folderOf(file);
        if (from !== undefined && to !== undefined && other && to <= from)
          upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, dep)}`);
      }
    }
    expect(upward).toEqual([]);
  });
});

/** File → the src files it imports for types only (`import type`, `export type ... from`). */
function typeOnlyGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    const deps: string[] = [];
    for (const node of source.statements) {
      const typeImport = ts.isImportDeclaration(node) && node.importClause?.isTypeOnly === true;
      const typeExport = ts.isExportDeclaration(node) && node.isTypeOnly && node.moduleSpecifier !== undefined;
      if (!typeImport && !typeExport) continue;
      const spec = (node.moduleSpecifier as ts.StringLiteral).text;
      if (spec.startsWith(".")) deps.push(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")));
    }
    graph.set(file, deps);
  }
  return graph;
}

describe("type imports count against the layers too", () => {
  const files = fileGraph();
  const typeOnly = typeOnlyGraph();
  const rank = new Map(LAYERS.flatMap((layer, i) => layer.map((folder) => [folder, i] as const)));

  it("the layer check reads every type-only import (the check is not vacuous)", () => {
    const edges = [...typeOnly].flatMap(([file, deps]) => deps.map((dep) => [file, dep] as const));
    expect(edges.length).toBeGreaterThan(100);
    const unseen = edges.filter(([file, dep]) => !(files.get(file) ?? []).includes(dep));
    expect(unseen.map(([f, d]) => `${path.relative(SRC, f)} -> ${path.relative(SRC, d)}`)).toEqual([]);
  });

  it("no type-only import points up a layer or sideways within one", () => {
    const upward = [...typeOnly].flatMap(([file, deps]) =>
      deps
        .filter((dep) => folderOf(dep) !== folderOf(file))
        .filter((dep) => (rank.get(folderOf(dep)) ?? Infinity) <= (rank.get(folderOf(file)) ?? -1))
        .map((dep) => `${path.relative(SRC, file)} -> ${path.relative(SRC, dep)}`),
    );
    expect(upward).toEqual([]);
  });

  it("assembly names what lies behind its ports only in assembly/ports.ts, types included", () => {
    const behindPorts = new Set(["capture", "summary", "subagents", "fs", "engine", "state", "tokens"]);
    const ports = path.join(SRC, "assembly/ports.ts");
    const through = [...files]
      .filter(([file]) => folderOf(file) === "assembly" && file !== ports)
      .flatMap(([file, deps]) =>
        deps
          .filter((dep) => behindPorts.has(folderOf(dep).split("/")[0] ?? ""))
          .map((dep) => `${path.relative(SRC, file)} -> ${path.relative(SRC, dep)}`),
      );
    expect(through).toEqual([]);
  });
});

describe("the CLI stays a front end", () => {
  const files = fileGraph();
  const inCli = (f: string): boolean => folderOf(f).split("/")[0] === "cli";

  it("only the plugin's wiring, the chat command, the Ledger page and the CLI itself import from cli/", () => {
    const importers = [...files]
      .filter(([file, deps]) => !inCli(file) && deps.some(inCli))
      .map(([file]) => path.relative(SRC, file))
      .filter((f) => f !== "plugin.ts" && !f.startsWith(`chat${path.sep}`) && !f.startsWith(`page${path.sep}`));
    expect(importers).toEqual([]);
  });
});

/** File → the src files it imports for values (type-only imports and re-exports left out): what runs. */
function valueGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    const deps: string[] = [];
    for (const node of source.statements) {
      const isValueImport = ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly;
      const isValueExport = ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier !== undefined;
      if (!isValueImport && !isValueExport) continue;
      const spec = (node.moduleSpecifier as ts.StringLiteral).text;
      if (spec.startsWith(".")) deps.push(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")));
    }
    graph.set(file, deps);
  }
  return graph;
}

function reachedFrom(graph: ReadonlyMap<string, readonly string[]>, start: string): Set<string> {
  const seen = new Set<string>();
  for (const todo = [start]; todo.length > 0;) {
    const file = todo.pop() as string;
    if (seen.has(file) || !graph.has(file)) continue;
    seen.add(file);
    todo.push(...(graph.get(file) ?? []));
  }
  return seen;
}

/** The folder of a file under src/ ("." for the root). */
const folderOfReached = (f: string): string => path.relative(SRC, path.dirname(f)) || ".";

describe("the engine's entry stays narrow (docs/architecture.md states the numbers)", () => {
  const entry = path.join(SRC, "engine/create-engine.ts");
  const byValue = reachedFrom(valueGraph(), entry);
  const withTypes = reachedFrom(fileGraph(), entry);

  it("reads the entry's reach (the check is not vacuous)", () => {
    expect(byValue.size).toBeGreaterThan(50);
    expect([...byValue].every((f) => withTypes.has(f))).toBe(true);
  });

  it("an engine runs at most 109 files in 17 folders (value imports from engine/create-engine.ts)", () => {
    expect(byValue.size).toBeLessThanOrEqual(109);
    expect(new Set([...byValue].map(folderOfReached)).size).toBeLessThanOrEqual(17);
  });

  it("a reader of the engine meets at most 130 files in 18 folders (type imports too)", () => {
    expect(withTypes.size).toBeLessThanOrEqual(130);
    expect(new Set([...withTypes].map(folderOfReached)).size).toBeLessThanOrEqual(18);
  });

  it("the engine's entry never reaches the runtime's constructor: it is handed the services", () => {
    expect(withTypes.has(path.join(SRC, "runtime/ledger-runtime.ts"))).toBe(false);
  });
});

describe("the assembly path stays narrow", () => {
  const reached = reachedFrom(valueGraph(), path.join(SRC, "assembly/assemble-view.ts"));
  const folders = new Set([...reached].map(folderOfReached));

  it("reaches captures, the summary, state files and the counter only through its ports and typed slots", () => {
    expect(reached.size).toBeGreaterThan(10);
    for (const behindPorts of ["capture", "summary", "subagents", "fs", "engine", "state", "tokens"])
      expect([...folders].filter((f) => f.split("/")[0] === behindPorts)).toEqual([]);
    const runtime = [...reached].filter((f) => folderOfReached(f) === "runtime").map((f) => path.relative(SRC, f));
    expect(runtime).toEqual(["runtime/state-slots.ts"]);
  });

  it("an assemble call runs at most 38 files in 8 folders (docs/architecture.md)", () => {
    expect(reached.size).toBeLessThanOrEqual(38);
    expect(folders.size).toBeLessThanOrEqual(8);
  });
});
