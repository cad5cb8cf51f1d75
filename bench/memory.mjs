// Benchmark 6: process memory with the engine loaded and the tokenizer warm,
// and its growth over the 200-turn session, measured in a fresh child process.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { round } from "./lib/stats.mjs";

const CHILD = fileURLToPath(new URL("./children/memory.mjs", import.meta.url));

/**
 * Runs the benchmark (one child per rep; the figures are medians).
 * @param {{ turns?: number, reps?: number, log?: (line: string) => void }} [options]
 */
export function runMemoryBench(options = {}) {
  const log = options.log ?? (() => {});
  const runs = [];
  for (let i = 0; i < (options.reps ?? 1); i++) {
    const child = spawnSync(process.execPath, ["--expose-gc", CHILD, String(options.turns ?? 200)], {
      encoding: "utf8",
      maxBuffer: 4 << 20,
    });
    if (child.status !== 0) return { name: "memory", error: child.stderr.trim().slice(-500) };
    runs.push(JSON.parse(child.stdout.trim().split("\n").at(-1)));
  }
  const med = (f) => round([...runs.map(f)].sort((a, b) => a - b)[Math.floor(runs.length / 2)]);
  const result = {
    name: "memory",
    runs: runs.length,
    loadedRssMB: med((r) => r.loaded.rssMB),
    loadedHeapMB: med((r) => r.loaded.heapMB),
    sessionRssMB: med((r) => r.withSession.rssMB),
    endRssMB: med((r) => r.end.rssMB),
    growthRssMB: med((r) => r.growthRssMB),
    growthHeapMB: med((r) => r.growthHeapMB),
    growthHeapTotalMB: med((r) => r.growthHeapTotalMB),
    growthExternalMB: med((r) => r.growthExternalMB),
    peakRssMB: med((r) => r.peakRssMB),
    samples: runs[0].samples.map((s) => ({ turn: s.turn, rssMB: round(s.rssMB), heapMB: round(s.heapMB) })),
  };
  log(
    `RSS with engine loaded + tokenizer warm: ${result.loadedRssMB} MB (heap ${result.loadedHeapMB} MB); with the session's messages ${result.sessionRssMB} MB; growth over ${options.turns ?? 200} turns: RSS ${result.growthRssMB} MB, heap ${result.growthHeapMB} MB (committed heap ${result.growthHeapTotalMB} MB, external ${result.growthExternalMB} MB)`,
  );
  return result;
}
