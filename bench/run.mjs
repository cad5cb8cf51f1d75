// `npm run bench`: runs every benchmark in one process (children only where a
// fresh process is the point), writes bench/results/<date>.json and rewrites
// docs/benchmarks.md with its SVG charts. Needs `npm run build` first.
// Options: --only tokens,latency,counting,store,memory,continuity,replay   --quick (smaller, for a smoke run)
//          --report-only <results.json> (rewrite docs from saved results)
import { cpus, loadavg, totalmem } from "node:os";
import { mkdir, writeFile } from "node:fs/promises";
import { runBudgetReplayBench } from "./budget-replay.mjs";
import { runContinuityBench } from "./continuity.mjs";
import { runCountingBench } from "./counting.mjs";
import { runLatencyBench } from "./latency.mjs";
import { runMemoryBench } from "./memory.mjs";
import { collectTargets, writeReport } from "./report.mjs";
import { runStoreBench } from "./store.mjs";
import { runTokensPerTurnBench } from "./tokens-per-turn.mjs";

const args = process.argv.slice(2);
const only = args.includes("--only") ? new Set(args[args.indexOf("--only") + 1].split(",")) : undefined;
const quick = args.includes("--quick");
const wanted = (name) => !only || only.has(name);

if (args.includes("--report-only")) {
  const { readFile } = await import("node:fs/promises");
  const saved = JSON.parse(await readFile(args[args.indexOf("--report-only") + 1], "utf8"));
  await writeReport(saved, { docsDir: new URL("../docs/", import.meta.url) });
  console.log("docs/benchmarks.md rewritten from", args[args.indexOf("--report-only") + 1]);
  process.exit(0);
}

const started = performance.now();
const date = new Date().toISOString().slice(0, 10);
const results = {
  schema: "context-ledger.bench.v1",
  date,
  startedAt: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model.trim() ?? "unknown", cores: cpus().length, memGB: totalmem() / 1024 ** 3, node: process.version, platform: `${process.platform}-${process.arch}`, loadAvg: loadavg().map((v) => Math.round(v * 100) / 100) },
  quick,
};
const log = (name) => (line) => console.log(`  [${name}] ${line}`);
const elapsed = () => `${Math.round((performance.now() - started) / 1000)}s`;

const steps = [
  ["tokens", "1/4/8 tokens per turn, cache stability, offload ratio", () => runTokensPerTurnBench({ turns: quick ? 40 : 200, log: log("tokens") })],
  ["latency", "2 assembly latency", () => runLatencyBench({ calls: quick ? 15 : 50, freshReps: quick ? 1 : 5, log: log("latency") })],
  ["counting", "3 token counting", () => runCountingBench({ sizes: quick ? [10_000, 100_000, 1_000_000] : [10_000, 30_000, 100_000, 300_000, 1_000_000], log: log("counting") })],
  ["store", "5 artifact store", () => runStoreBench({ gcArtifacts: quick ? 10_000 : 100_000, stashReps: quick ? 10 : 40, fetchReps: quick ? 5 : 15, log: log("store") })],
  ["memory", "6 memory", () => runMemoryBench({ turns: quick ? 40 : 200, log: log("memory") })],
  ["continuity", "7 continuity", () => runContinuityBench({ log: log("continuity") })],
  ["replay", "8 budget replay (host budget patterns)", () => runBudgetReplayBench({ turns: quick ? 40 : 160, log: log("replay") })],
];

for (const [key, label, run] of steps) {
  if (!wanted(key)) continue;
  console.log(`[${elapsed()}] ${label} ...`);
  const t = performance.now();
  try {
    results[key] = await run();
    results[key].durationMs = Math.round(performance.now() - t);
  } catch (err) {
    results[key] = { error: String(err?.stack ?? err) };
    console.log(`  [${key}] FAILED: ${err?.message ?? err}`);
  }
  console.log(`[${elapsed()}] ${label} done in ${Math.round((performance.now() - t) / 1000)} s`);
}
results.durationMs = Math.round(performance.now() - started);
for (const k of Object.keys(results)) if (results[k]?.error) delete results[k].targets;

await mkdir(new URL("./results/", import.meta.url), { recursive: true });
const file = new URL(`./results/${date}${quick ? "-quick" : ""}.json`, import.meta.url);
if (only) {
  // A partial run updates today's results instead of replacing them.
  const { readFile } = await import("node:fs/promises");
  const saved = await readFile(file, "utf8").then(JSON.parse, () => undefined);
  if (saved) {
    for (const key of Object.keys(saved)) if (!(key in results) || (steps.some(([k]) => k === key) && !wanted(key))) results[key] = saved[key];
    results.durationMs = saved.durationMs;
    results.partialRerun = [...only];
    results.carriedFrom = saved.carriedFrom ?? saved.date;
  }
}
await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
if (!quick) await writeReport(results, { docsDir: new URL("../docs/", import.meta.url) });

const rows = collectTargets(results);
const width = Math.max(...rows.map(([l]) => l.length));
console.log(`\n${"figure".padEnd(width)}  ${"measured".padStart(16)}  ${"target".padStart(16)}`);
for (const [label, t] of rows) console.log(`${label.padEnd(width)}  ${`${t.measured} ${t.unit}`.padStart(16)}  ${`${t.cmp} ${t.target} ${t.unit}`.padStart(16)}  ${t.pass ? "PASS" : "MISS"}`);
console.log(`\n${rows.filter(([, t]) => t.pass).length}/${rows.length} targets met; results in ${file.pathname}${quick ? " (quick run: docs not rewritten)" : ", report in docs/benchmarks.md"}; ${elapsed()} total`);
