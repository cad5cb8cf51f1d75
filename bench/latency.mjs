// Benchmark 2: assemble() latency against history length at one budget, warm
// (same process, one message appended per call, and unchanged input) and
// first call in a fresh process (module import and tokenizer load included).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createBenchEngine } from "./lib/engine.mjs";
import { createMessageBuilder } from "./lib/messages.mjs";
import { generateLongHistory } from "./lib/synthetic-session.mjs";
import { check, round, summarize, timeRuns } from "./lib/stats.mjs";

const CHILD = fileURLToPath(new URL("./children/first-call.mjs", import.meta.url));
/** History lengths measured. */
export const LENGTHS = [1_000, 10_000, 50_000];
/** Budget of every run (tokens). */
export const LATENCY_BUDGET = 128_000;

async function warm(n, calls, config = {}) {
  const messages = generateLongHistory(n);
  const bench = await createBenchEngine(config);
  const ids = { sessionId: `lat-${n}`, sessionKey: `agent:main:lat-${n}` };
  const call = (list) =>
    bench.engine.assemble({ ...ids, messages: list, tokenBudget: LATENCY_BUDGET, model: "gpt-4o" });
  try {
    const first = await timeRuns(1, () => call(messages.slice()));
    // Settle: a few calls so the window's anchor and the summary are in place.
    for (let i = 0; i < 3; i++) await call(messages.slice());
    const unchanged = await timeRuns(calls, () => call(messages.slice()));
    const b = createMessageBuilder(1_900_000_000_000);
    const appended = await timeRuns(calls, (i) => {
      messages.push(
        i % 2 === 0
          ? b.user(`follow-up ${i}: and what about the next batch?`)
          : b.assistant(`Batch ${i} is fine; nothing failed.`),
      );
      return call(messages.slice());
    });
    const last = await call(messages.slice());
    return {
      n,
      inProcessFirstMs: round(first[0]),
      appended: summarize(appended),
      unchanged: summarize(unchanged),
      kept: last.messages.length,
      tokens: last.estimatedTokens,
    };
  } finally {
    await bench.cleanup();
  }
}

function fresh(n, reps) {
  const runs = [];
  for (let i = 0; i < reps; i++) {
    const child = spawnSync(process.execPath, [CHILD, String(n), String(LATENCY_BUDGET)], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) return { n, error: child.stderr.trim().slice(-400) };
    runs.push(JSON.parse(child.stdout.trim().split("\n").at(-1)));
  }
  return {
    n,
    firstMs: summarize(runs.map((r) => r.firstMs)),
    importMs: summarize(runs.map((r) => r.importMs)),
    firstWithImportMs: summarize(runs.map((r) => r.firstWithImportMs)),
    secondMs: summarize(runs.map((r) => r.secondMs)),
    rssMB: summarize(runs.map((r) => r.rssMB)),
  };
}

/**
 * Runs the benchmark.
 * @param {{ calls?: number, freshReps?: number, lengths?: number[], log?: (line: string) => void }} [options]
 */
export async function runLatencyBench(options = {}) {
  const log = options.log ?? (() => {});
  const calls = options.calls ?? 50;
  const lengths = options.lengths ?? LENGTHS;
  const warmRows = [];
  for (const n of lengths) {
    const row = await warm(n, calls);
    warmRows.push(row);
    log(
      `warm ${String(n).padStart(6)} msgs: appended p50 ${row.appended.p50} ms (p5 ${row.appended.p5}, p95 ${row.appended.p95}); unchanged p50 ${row.unchanged.p50} ms; kept ${row.kept} msgs / ${row.tokens} tok`,
    );
  }
  const breakdown = [];
  for (const n of lengths) {
    const row = await warm(n, calls, { summary: { enabled: false } });
    breakdown.push({ n, p50: row.appended.p50 });
  }
  log(`warm appended p50 with the summary disabled: ${breakdown.map((b) => `${b.n} msgs ${b.p50} ms`).join(", ")}`);
  const freshRows = [];
  for (const n of lengths) {
    const row = fresh(n, options.freshReps ?? 5);
    freshRows.push(row);
    if (row.error) log(`fresh ${n}: child failed: ${row.error}`);
    else
      log(
        `fresh ${String(n).padStart(6)} msgs: first assemble p50 ${row.firstMs.p50} ms (import ${row.importMs.p50} ms more); second ${row.secondMs.p50} ms`,
      );
  }
  const at = (rows, n) => rows.find((r) => r.n === n);
  const small = at(warmRows, lengths[0]);
  const large = at(warmRows, lengths.at(-1));
  const ratio = large.appended.p50 / small.appended.p50;
  const ratioUnchanged = large.unchanged.p50 / small.unchanged.p50;
  const freshLarge = at(freshRows, lengths.at(-1));
  log(`ratio ${lengths.at(-1)}/${lengths[0]} (warm, appended): ${round(ratio)}; unchanged: ${round(ratioUnchanged)}`);
  return {
    name: "assembly-latency",
    budget: LATENCY_BUDGET,
    callsPerPoint: calls,
    warm: warmRows,
    fresh: freshRows,
    breakdown,
    ratio: round(ratio),
    ratioUnchanged: round(ratioUnchanged),
    targets: {
      warm1kMs: check(small.appended.p50, "<=", 2, "ms"),
      warm50kMs: check(large.appended.p50, "<=", 10, "ms"),
      ratio50kTo1k: check(ratio, "<=", 5, "x"),
      firstCall50kMs: check(freshLarge.firstMs?.p50 ?? Number.NaN, "<=", 1500, "ms"),
    },
  };
}
