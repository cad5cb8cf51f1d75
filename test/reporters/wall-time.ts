/**
 * Prints the suite's own wall time at the end of a run: per vitest project (first file
 * start to last file end, files, tests by state) and per host test file (wall time and
 * each test's), so `npm test` reports its budget without a stopwatch.
 */
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

interface ModuleTiming {
  project: string;
  file: string;
  start: number;
  end: number;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** The wall-time reporter (add it next to the default reporter). */
export default class WallTimeReporter implements Reporter {
  #runStart = Date.now();
  readonly #timings = new Map<string, ModuleTiming>();

  onTestRunStart(): void {
    this.#runStart = Date.now();
    this.#timings.clear();
  }

  onTestModuleStart(module: TestModule): void {
    this.#timings.set(module.moduleId, {
      project: module.project.name,
      file: path.relative(process.cwd(), module.moduleId),
      start: Date.now(),
      end: Date.now(),
    });
  }

  onTestModuleEnd(module: TestModule): void {
    const t = this.#timings.get(module.moduleId);
    if (t) t.end = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines = [`wall time: whole run ${seconds(Date.now() - this.#runStart)}`];
    const byProject = new Map<string, TestModule[]>();
    for (const m of modules) byProject.set(m.project.name, [...(byProject.get(m.project.name) ?? []), m]);
    for (const [project, list] of [...byProject].sort(([a], [b]) => a.localeCompare(b))) {
      const timings = list.map((m) => this.#timings.get(m.moduleId)).filter((t): t is ModuleTiming => t !== undefined);
      const wall = timings.length
        ? Math.max(...timings.map((t) => t.end)) - Math.min(...timings.map((t) => t.start))
        : 0;
      const states: Record<string, number> = {};
      for (const m of list)
        for (const test of m.children.allTests()) states[test.result().state] = (states[test.result().state] ?? 0) + 1;
      const counts = Object.entries(states)
        .map(([state, n]) => `${n} ${state}`)
        .join(", ");
      lines.push(`  project ${project}: ${seconds(wall)} wall, ${list.length} files, ${counts || "no tests"}`);
      if (project !== "host") continue;
      for (const m of [...list].sort((a, b) => a.moduleId.localeCompare(b.moduleId))) {
        const t = this.#timings.get(m.moduleId);
        lines.push(`    ${t?.file ?? m.moduleId}: ${t ? seconds(t.end - t.start) : "?"}`);
        for (const test of m.children.allTests()) {
          lines.push(
            `      ${test.result().state.padEnd(7)} ${seconds(test.diagnostic()?.duration ?? 0).padStart(7)}  ${test.fullName}`,
          );
        }
      }
    }
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
