// `npm run bench`: runs every benchmark in one process (children only where a fresh
// process is the point), prints each figure against its target, and writes the results
// JSON into the git-ignored .bench/results/. Only --write-docs touches tracked files
// (docs/benchmarks.md, docs/bench/*.svg, bench/results/<date>.json). `--help` lists the options.
import { cpus, loadavg, totalmem } from "node:os";
import { copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runBudgetReplayBench } from "./budget-replay.mjs";
import { runContinuityBench } from "./continuity.mjs";
import { runCountingBench } from "./counting.mjs";
import { runLatencyBench } from "./latency.mjs";
import { runMemoryBench } from "./memory.mjs";
import { collectTargets, writeReport } from "./report.mjs";
import { runStoreBench } from "./store.mjs";
import { runTokensPerTurnBench } from "./tokens-per-turn.mjs";
import { runConcurrentSessionsBench } from "./concurrent-sessions.ts";
import { runLongHaulBench } from "./long-haul.ts";
import { runS3Bench } from "./s3.ts";
import { runFullExecBackgroundBench } from "./full-exec-background.ts";
import { runBoundedWorkBench } from "./bounded-work.ts";

const log = (name) => (line) => console.log(`  [${name}] ${line}`);

/**
 * Every bench: [key for --only, label, run(quick), { optIn }?]. Adding a bench is one line here;
 * an opt-in one runs only when named.
 */
const steps = [
  [
    "tokens",
    "1/4/8 tokens per turn, cache stability, offload ratio",
    (quick) => runTokensPerTurnBench({ turns: quick ? 40 : 200, log: log("tokens") }),
  ],
  [
    "latency",
    "2 assembly latency",
    (quick) => runLatencyBench({ calls: quick ? 15 : 50, freshReps: quick ? 1 : 5, log: log("latency") }),
  ],
  [
    "counting",
    "3 token counting",
    (quick) =>
      runCountingBench({
        sizes: quick ? [10_000, 100_000, 1_000_000] : [10_000, 30_000, 100_000, 300_000, 1_000_000],
        log: log("counting"),
      }),
  ],
  [
    "store",
    "5 artifact store",
    (quick) =>
      runStoreBench({
        gcArtifacts: quick ? 10_000 : 100_000,
        stashReps: quick ? 10 : 40,
        fetchReps: quick ? 5 : 15,
        log: log("store"),
      }),
  ],
  ["memory", "6 memory", (quick) => runMemoryBench({ turns: quick ? 40 : 200, log: log("memory") })],
  ["continuity", "7 continuity", () => runContinuityBench({ log: log("continuity") })],
  [
    "replay",
    "8 budget replay (host budget patterns)",
    (quick) => runBudgetReplayBench({ turns: quick ? 40 : 160, log: log("replay") }),
  ],
  [
    "bounded",
    "13 bounded work on 1 MB adversarial inputs",
    (quick) => runBoundedWorkBench({ quick, log: log("bounded") }),
  ],
  [
    "long-haul",
    "9 long haul (real gateways; about an hour, so only when named in --only)",
    (quick) => runLongHaulBench({ turns: quick ? 100 : 500, ...longHaulRuns(), log: log("long-haul") }),
    { optIn: true },
  ],
  [
    "sessions",
    "10 sessions at once (a real gateway; about 10 minutes, so only when named in --only)",
    (quick) => runConcurrentSessionsBench({ sessions: quick ? 3 : 10, turns: quick ? 20 : 50, log: log("sessions") }),
    { optIn: true },
  ],
  [
    "s3",
    "11 artifact store on S3 (a throwaway Ceph RGW; only when named in --only)",
    (quick) => runS3Bench({ quick, log: log("s3") }),
    { optIn: true },
  ],
  [
    "full-exec-bg",
    "12 a 5 MB command over 20 s sent to the background at the default 10 s (a real gateway; only when named in --only)",
    (quick) => runFullExecBackgroundBench({ pauseSec: quick ? 0.3 : 0.5, log: log("full-exec-bg") }),
    { optIn: true },
  ],
];

const HELP = `npm run bench [-- OPTIONS]      (runs \`npm run build\` first; or node --import ./scripts/register-ts.mjs bench/run.mjs)

Runs the benchmarks and prints every figure beside its target. By default nothing tracked
changes: the results JSON goes to .bench/results/<date>[-quick].json (git-ignored).

Options:
  --only KEYS         comma-separated subset: ${steps.map(([k]) => k).join(", ")}
                      (a partial run merges into the same day's saved results)
  --quick             smaller inputs (fewer turns, sizes and repetitions) for a smoke run;
                      its results go to <date>-quick.json and are never written into the docs
  --write-docs        also rewrite docs/benchmarks.md and docs/bench/*.svg from this run and copy
                      the results JSON to bench/results/<date>.json (the file the page links to)
  --long-haul-runs R  the long haul's runs only, as LINE:ENGINE pairs (e.g. 2026.4.24:context-ledger); they
                      replace the same runs in the day's saved long haul and the others are kept
  --report-only FILE  rewrite docs/benchmarks.md and docs/bench/*.svg from saved results; runs nothing
  --out DIR           where the results JSON goes (default .bench/results)
  -h, --help          print this help and exit`;

let opts;
try {
  ({ values: opts } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    allowPositionals: false,
    options: {
      only: { type: "string" },
      quick: { type: "boolean" },
      "write-docs": { type: "boolean" },
      "report-only": { type: "string" },
      "long-haul-runs": { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (err) {
  console.error(
    `bench: ${String(err?.message ?? err).replace(/\. To specify a positional argument.*$/s, "")} (see npm run bench -- --help)`,
  );
  process.exit(2);
}
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
const keys = steps.map(([k]) => k);
const only =
  opts.only === undefined
    ? undefined
    : new Set(
        opts.only
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      );
const unknown = only ? [...only].filter((k) => !keys.includes(k)) : [];
if (only && (only.size === 0 || unknown.length)) {
  console.error(
    `bench: --only: expected a comma-separated subset of ${keys.join(", ")}, got "${opts.only}" (see npm run bench -- --help)`,
  );
  process.exit(2);
}
const runPairs = (opts["long-haul-runs"] ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean)
  .map((pair) => pair.split(":"));
if (
  runPairs.some(
    ([line, engine, rest]) =>
      !/^\d{4}\.\d+\.\d+$/.test(line ?? "") || !["context-ledger", "legacy"].includes(engine) || rest !== undefined,
  )
) {
  console.error(
    `bench: --long-haul-runs: expected LINE:ENGINE pairs such as 2026.4.24:context-ledger (engine context-ledger or legacy), got "${opts["long-haul-runs"]}" (see npm run bench -- --help)`,
  );
  process.exit(2);
}
/** The long haul's lines and engines when --long-haul-runs names some (each pair once: a line's runs go together). */
function longHaulRuns() {
  if (runPairs.length === 0) return {};
  return { runs: runPairs.map(([version, engine]) => ({ version, engine })) };
}
const quick = opts.quick === true;
const writeDocs = opts["write-docs"] === true;
if (quick && writeDocs) {
  console.error("bench: --write-docs: the docs hold full runs only; drop --quick (see npm run bench -- --help)");
  process.exit(2);
}
const docsDir = new URL("../docs/", import.meta.url);
const rel = (url) => fileURLToPath(url).replace(`${fileURLToPath(new URL("../", import.meta.url))}`, "");

if (opts["report-only"] !== undefined) {
  const saved = JSON.parse(await readFile(opts["report-only"], "utf8"));
  await writeReport(saved, { docsDir });
  console.log(`docs/benchmarks.md and docs/bench/*.svg rewritten from ${opts["report-only"]}`);
  process.exit(0);
}

const optIn = new Set(steps.filter((s) => s[3]?.optIn).map(([k]) => k));
const wanted = (name) => (only ? only.has(name) : !optIn.has(name));
const started = performance.now();
const date = new Date().toISOString().slice(0, 10);
const results = {
  schema: "context-ledger.bench.v1",
  date,
  startedAt: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
    memGB: totalmem() / 1024 ** 3,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAvg: loadavg().map((v) => Math.round(v * 100) / 100),
  },
  quick,
};
const elapsed = () => `${Math.round((performance.now() - started) / 1000)}s`;

for (const [key, label, run] of steps) {
  if (!wanted(key)) continue;
  console.log(`[${elapsed()}] ${label} ...`);
  const t = performance.now();
  try {
    results[key] = await run(quick);
    results[key].durationMs = Math.round(performance.now() - t);
  } catch (err) {
    results[key] = { error: String(err?.stack ?? err) };
    console.log(`  [${key}] FAILED: ${err?.message ?? err}`);
  }
  console.log(`[${elapsed()}] ${label} done in ${Math.round((performance.now() - t) / 1000)} s`);
}
results.durationMs = Math.round(performance.now() - started);
for (const k of Object.keys(results)) if (results[k]?.error) delete results[k].targets;

const outDir =
  opts.out === undefined
    ? new URL("../.bench/results/", import.meta.url)
    : new URL(`${opts.out.replace(/\/?$/, "/")}`, `file://${process.cwd()}/`);
await mkdir(outDir, { recursive: true });
const file = new URL(`${date}${quick ? "-quick" : ""}.json`, outDir);
const tracked = new URL(`../bench/results/${date}.json`, import.meta.url);
if (only) {
  // A partial run updates the same day's results instead of replacing them: with --write-docs the tracked ones the
  // report is made from (the git-ignored copy may hold only another partial run).
  const read = (url) => readFile(url, "utf8").then(JSON.parse, () => undefined);
  const saved = (writeDocs ? await read(tracked) : undefined) ?? (await read(file));
  if (saved) {
    for (const key of Object.keys(saved))
      if (!(key in results) || (keys.includes(key) && !wanted(key))) results[key] = saved[key];
    // Rerun long-haul runs replace their own rows; the saved runs of other lines and engines stay.
    const lh = results["long-haul"];
    if (runPairs.length && lh?.runs && saved["long-haul"]?.runs) {
      const key = (r) => `${r.version}:${r.engine}`;
      const fresh = new Map(lh.runs.map((r) => [key(r), r]));
      const rerun = new Set(fresh.keys());
      // In the saved order (the report's rows), new lines and engines after them.
      lh.runs = [
        ...saved["long-haul"].runs.map((r) => fresh.get(key(r)) ?? r),
        ...lh.runs.filter((r) => !saved["long-haul"].runs.some((s) => key(s) === key(r))),
      ];
      lh.targets = { ...saved["long-haul"].targets, ...lh.targets };
      lh.rerunRuns = [...rerun];
    }
    results.durationMs = saved.durationMs;
    if (results.carriedSections) {
      results.carriedSections = { ...results.carriedSections };
      for (const key of only) delete results.carriedSections[key];
    }
    results.partialRerun = [...only];
    results.carriedFrom = saved.carriedFrom ?? saved.date;
  }
}
if (writeDocs && !only) {
  // A full run leaves the opt-in sections out (an hour of long haul, real gateways, a Ceph RGW): the page keeps the
  // newest tracked results of each, dated, instead of dropping them.
  const carried = await carryOptInSections(results, optIn, new URL("../bench/results/", import.meta.url));
  if (Object.keys(carried).length > 0) results.carriedSections = carried;
}
await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
if (writeDocs) {
  await mkdir(new URL("./", tracked), { recursive: true });
  await copyFile(file, tracked);
  await writeReport(results, { docsDir });
}

const rows = collectTargets(results);
const width = Math.max(0, ...rows.map(([l]) => l.length));
console.log(`\n${"figure".padEnd(width)}  ${"measured".padStart(16)}  ${"target".padStart(16)}`);
for (const [label, t] of rows)
  console.log(
    `${label.padEnd(width)}  ${`${t.measured} ${t.unit}`.padStart(16)}  ${`${t.cmp} ${t.target} ${t.unit}`.padStart(16)}  ${t.pass ? "PASS" : "MISS"}`,
  );
const where = writeDocs
  ? `; docs/benchmarks.md, docs/bench/*.svg and bench/results/${date}.json rewritten`
  : "; docs untouched (--write-docs rewrites docs/benchmarks.md)";
console.log(
  `\n${rows.filter(([, t]) => t.pass).length}/${rows.length} targets met; results in ${rel(file)}${where}; ${elapsed()} total`,
);

/**
 * Copies into `results` each opt-in section it lacks from the newest results file in `dir` that holds it (and no
 * error); returns the date each came from, by section.
 */
async function carryOptInSections(results, optInKeys, dir) {
  const files = (await readdir(dir).catch(() => []))
    .filter((f) => /^\d{4}-\d{2}-\d{2}\.json$/.test(f) && f !== `${results.date}.json`)
    .sort()
    .reverse();
  const carried = {};
  for (const f of files) {
    const saved = JSON.parse(await readFile(new URL(f, dir), "utf8"));
    for (const key of optInKeys) {
      if (key in results || !saved[key] || saved[key].error) continue;
      results[key] = saved[key];
      carried[key] = saved.date;
    }
  }
  return carried;
}
