// Benchmark 2: assemble() latency against history length at one budget, warm
// (same process, one message appended per call, and unchanged input) and
// first call in a fresh process (module import and tokenizer load included).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { captureIndexOf } from "../dist/src/capture/capture-index.js";
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

/** Capture counts of the captured-session measure: a short session and one of about 500 turns. */
export const CAPTURE_COUNTS = [30, 1_000];

/**
 * assemble() as 2026.4.24 calls it (fresh message objects on every call: it loads the transcript anew each
 * run) on a session whose capture folder holds `captures` records, with the newest turn's output big enough to
 * be offloaded, so the capture index is asked for it on every call.
 * @param {number} captures
 * @param {number} calls
 * @param {object} [config] plugin config input (the S3 bench passes its `store`)
 */
export async function captured(captures, calls, config = {}) {
  const bench = await createBenchEngine(config, { generation: "2026.4" });
  const ids = { sessionId: `cap-${captures}`, sessionKey: `agent:main:cap-${captures}` };
  try {
    const index = captureIndexOf(bench.services, "main");
    for (let i = 0; i < captures; i++) {
      const text = `output ${i}\n`.repeat(200);
      const { handle } = await bench.services.store("main").stash(text, {});
      await index.record({
        toolCallId: `call_${i}`,
        toolName: "exec",
        ...ids,
        handle,
        chars: text.length,
        lines: 200,
        source: "aggregated",
      });
    }
    const history = [];
    for (let t = 0; t < 40; t++) {
      const output = `line ${t} `.repeat(t === 39 ? 3_000 : 50);
      history.push(
        { role: "user", content: `question ${t}` },
        { role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: "exec", arguments: { command: "x" } }] },
        { role: "toolResult", toolCallId: `c${t}`, toolName: "exec", content: [{ type: "text", text: output }] },
        { role: "assistant", content: `answer ${t}` },
      );
    }
    const copies = Array.from({ length: calls + 1 }, () => structuredClone(history));
    const call = (i) => bench.engine.assemble({ ...ids, messages: copies[i], tokenBudget: 32_000 });
    await call(calls);
    return { captures, ...summarize(await timeRuns(calls, call)) };
  } finally {
    await bench.cleanup();
  }
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
  const capturedRows = [];
  for (const n of CAPTURE_COUNTS) {
    const row = await captured(n, calls);
    capturedRows.push(row);
    log(`fresh objects, ${String(n).padStart(5)} captures in the session: p50 ${row.p50} ms (p95 ${row.p95})`);
  }
  const capturedRatio = capturedRows.at(-1).p50 / capturedRows[0].p50;
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
    captured: capturedRows,
    capturedRatio: round(capturedRatio),
    targets: {
      capturedRatio: check(capturedRatio, "<=", 1.5, "x"),
      warm1kMs: check(small.appended.p50, "<=", 2, "ms"),
      warm50kMs: check(large.appended.p50, "<=", 10, "ms"),
      ratio50kTo1k: check(ratio, "<=", 5, "x"),
      firstCall50kMs: check(freshLarge.firstMs?.p50 ?? Number.NaN, "<=", 1500, "ms"),
    },
  };
}
