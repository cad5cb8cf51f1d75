/**
 * The layout's promise, checked: every folder of src/ imports only downward. A new
 * cycle between files, or between folders (a file at the root of src/ counts as its
 * own folder: plugin.ts sits on top, errors.ts and version.ts at the bottom), fails
 * here with the folders and one import that closes it. Imports are read with
 * TypeScript's own pre-processor (type imports and re-exports included). An import of the
 * artifact store's face (`artifacts/index.ts`, which only re-exports) counts as an import of
 * the modules that define the names taken from it: a reader follows a name to its module.
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

const resolveSpec = (file: string, spec: string): string =>
  path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts"));

/** The artifact store's face: the one module of artifacts/ the rest of src/ may import. */
const FACE = path.join(SRC, "artifacts/index.ts");

/** Each name the face exports → the module that defines it. */
const faceDefiners = (): Map<string, string> => (definersMemo ??= readFaceDefiners());
let definersMemo: Map<string, string> | undefined;

function readFaceDefiners(): Map<string, string> {
  const source = ts.createSourceFile(FACE, readFileSync(FACE, "utf8"), ts.ScriptTarget.Latest);
  const out = new Map<string, string>();
  for (const node of source.statements) {
    if (!ts.isExportDeclaration(node) || !node.moduleSpecifier || !node.exportClause) continue;
    if (!ts.isNamedExports(node.exportClause)) continue;
    const from = resolveSpec(FACE, (node.moduleSpecifier as ts.StringLiteral).text);
    for (const e of node.exportClause.elements) out.set(e.name.text, from);
  }
  return out;
}

/**
 * The names `file` takes from the face, by declaration kind: `value` for those that run, `type` for those a type
 * import (or a `type` element) takes.
 */
function namesFromFace(file: string): { value: string[]; type: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const out = { value: [] as string[], type: [] as string[] };
  for (const node of source.statements) {
    const decl = ts.isImportDeclaration(node) || ts.isExportDeclaration(node) ? node : undefined;
    if (!decl?.moduleSpecifier || resolveSpec(file, (decl.moduleSpecifier as ts.StringLiteral).text) !== FACE) continue;
    const declType = ts.isImportDeclaration(decl) ? decl.importClause?.isTypeOnly === true : decl.isTypeOnly;
    const bindings = ts.isImportDeclaration(decl) ? decl.importClause?.namedBindings : decl.exportClause;
    if (!bindings || !(ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) continue;
    for (const e of bindings.elements)
      (declType || e.isTypeOnly ? out.type : out.value).push((e.propertyName ?? e.name).text);
  }
  return out;
}

/** `deps` of `file` with the face replaced by the definers of the names `kinds` take from it. */
function throughFace(file: string, deps: string[], kinds: ReadonlyArray<"value" | "type">): string[] {
  if (file === FACE || !deps.includes(FACE)) return deps;
  const definers = faceDefiners();
  const names = namesFromFace(file);
  const defined = kinds.flatMap((k) => names[k]).map((n) => definers.get(n) ?? FACE);
  return [...new Set([...deps.filter((d) => d !== FACE), ...defined])];
}

/** File → the src files it imports (relative specifiers only). */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const deps = info.importedFiles.filter((r) => r.fileName.startsWith(".")).map((r) => resolveSpec(file, r.fileName));
    graph.set(file, throughFace(file, deps, ["value", "type"]));
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
  ["artifacts/gc", "artifacts/migrate"],
  ["artifacts/store"],
  ["artifacts/backends"],
  ["artifacts/selectors"],
  ["artifacts/format"],
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
      if (spec.startsWith(".")) deps.push(resolveSpec(file, spec));
    }
    graph.set(file, throughFace(file, deps, ["type"]));
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

/**
 * The artifact store has one face, `artifacts/index.ts`: a module outside artifacts/ that imports anything else of the
 * folder (a blob path, a codec, a backend, the spool's layout) fails here, type imports included. Tests (`*.test.ts`
 * beside a module, and test/, bench/, which this graph does not read) may reach past it: they plant damaged blobs,
 * read the format on disk and drive one backend alone.
 */
describe("the artifact store is opened through its face only", () => {
  const inArtifacts = (f: string): boolean => folderOf(f).split("/")[0] === "artifacts";
  const raw = new Map(
    sourceFiles().map((file) => [
      file,
      ts
        .preProcessFile(readFileSync(file, "utf8"), true, true)
        .importedFiles.filter((r) => r.fileName.startsWith("."))
        .map((r) => resolveSpec(file, r.fileName)),
    ]),
  );

  it("the rest of src/ imports the face (the check is not vacuous)", () => {
    const importers = [...raw].filter(([file, deps]) => !inArtifacts(file) && deps.includes(FACE));
    expect(importers.length).toBeGreaterThan(40);
  });

  it("no module outside artifacts/ imports past the face", () => {
    const past = [...raw].flatMap(([file, deps]) =>
      inArtifacts(file)
        ? []
        : deps
            .filter((d) => inArtifacts(d) && d !== FACE)
            .map((d) => `${path.relative(SRC, file)} -> ${path.relative(SRC, d)}`),
    );
    expect(past).toEqual([]);
  });

  it('the backend named "s3" is spelled only in artifacts/backends/ and the config schema', () => {
    const spelled = [...raw.keys()]
      .filter((file) => !file.startsWith(path.join(SRC, "artifacts/backends") + path.sep))
      .filter((file) => file !== path.join(SRC, "config/schema.ts"))
      .filter((file) => readFileSync(file, "utf8").includes('"s3"'))
      .map((file) => path.relative(SRC, file));
    expect(spelled).toEqual([]);
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
      if (spec.startsWith(".")) deps.push(resolveSpec(file, spec));
    }
    graph.set(file, throughFace(file, deps, ["value"]));
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

  it("an engine runs at most 111 files in 20 folders (value imports from engine/create-engine.ts)", () => {
    expect(byValue.size).toBeLessThanOrEqual(111);
    expect(new Set([...byValue].map(folderOfReached)).size).toBeLessThanOrEqual(20);
  });

  it("a reader of the engine meets at most 132 files in 21 folders (type imports too)", () => {
    expect(withTypes.size).toBeLessThanOrEqual(132);
    expect(new Set([...withTypes].map(folderOfReached)).size).toBeLessThanOrEqual(21);
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

  it("an assemble call runs at most 38 files in 9 folders (docs/architecture.md)", () => {
    expect(reached.size).toBeLessThanOrEqual(38);
    expect(folders.size).toBeLessThanOrEqual(9);
  });
});
