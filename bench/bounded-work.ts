// Benchmark 13: bounded work on hostile input. The slowest call of each built-in scan over the 1 MB adversarial
// inputs, assemble() with a 1 MB adversarial tool output of each kind (warm engine), and how long a grep whose
// pattern backtracks without end runs before its time limit stops it. test/reliability/bounded-work.test.ts checks
// what these return; the times are measured only here.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { selectSlice } from "../src/artifacts/index.js";
import { parseConfig } from "../src/config/parse-config.js";
import { createEngine } from "../src/engine/create-engine.js";
import { createLedgerRuntime } from "../src/runtime/ledger-runtime.js";
import {
  adversarialInputs,
  adversarialToolOutputs,
  BUILT_IN_SCANS,
  CATASTROPHIC_GREP,
} from "../test/support/adversarial-inputs.js";
import { check, round } from "./lib/stats.mjs";

/** The grep time limit of the stopped-grep measure (ms). */
const GREP_LIMIT_MS = 300;

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function time<T>(run: () => T): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** The slowest call of each built-in scan over the adversarial inputs (every `stride`-th input in a quick run). */
function slowestScans(stride: number): { inputs: number; scans: Array<{ scan: string; ms: number; input: string }> } {
  const worst = new Map(BUILT_IN_SCANS.map(([name]) => [name, { scan: name, ms: 0, input: "" }]));
  let i = 0;
  let inputs = 0;
  for (const [kind, text] of adversarialInputs()) {
    if (i++ % stride !== 0) continue;
    inputs++;
    for (const [name, run] of BUILT_IN_SCANS) {
      const ms = time(() => run(text));
      const row = worst.get(name);
      if (row && ms > row.ms) Object.assign(row, { ms: round(ms), input: kind });
    }
  }
  return { inputs, scans: [...worst.values()] };
}

/** assemble() on one session per adversarial output, after a warm-up call (the tokenizer tables load on first use). */
async function assembleTimes(): Promise<Array<{ kind: string; ms: number }>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-bench-bounded-"));
  const config = parseConfig({ stateDir: dir, offload: { maxChars: 2_000, structuredMaxChars: 1_000 } });
  const engine = createEngine(createLedgerRuntime({ config, hostLogger: quiet }), {
    agentDir: path.join(dir, "agents", "main", "agent"),
  });
  const turn = (id: string, output: string) => [
    { role: "user", content: "run it" },
    { role: "assistant", content: [{ type: "toolCall", id, name: "exec", arguments: {} }] },
    { role: "toolResult", toolCallId: id, toolName: "exec", content: [{ type: "text", text: output }] },
    { role: "user", content: "what did it say?" },
  ];
  try {
    await engine.assemble({
      sessionId: "warm",
      sessionKey: "agent:main:warm",
      messages: turn("c0", "y".repeat(5_000)),
      tokenBudget: 50_000,
    });
    const rows: Array<{ kind: string; ms: number }> = [];
    for (const [i, [kind, text]] of adversarialToolOutputs().entries()) {
      const started = performance.now();
      await engine.assemble({
        sessionId: `s${i}`,
        sessionKey: `agent:main:adv${i}`,
        messages: turn(`c${i + 1}`, text),
        tokenBudget: 50_000,
      });
      rows.push({ kind, ms: round(performance.now() - started) });
    }
    return rows;
  } finally {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the benchmark; a quick run scans every 8th adversarial input. */
export async function runBoundedWorkBench(options: { quick?: boolean; log?: (line: string) => void } = {}) {
  const log = options.log ?? (() => undefined);
  const { inputs, scans } = slowestScans(options.quick ? 8 : 1);
  for (const s of scans) log(`${s.scan.padEnd(18)} slowest call ${s.ms} ms (${s.input})`);
  const assemble = await assembleTimes();
  log(`assemble with a 1 MB adversarial output: ${assemble.map((r) => `${r.kind} ${r.ms} ms`).join("; ")}`);
  const { pattern, text } = CATASTROPHIC_GREP;
  const grepStopMs = round(
    time(() => selectSlice(text, { kind: "grep", pattern }, { maxChars: 8_000, grepTimeoutMs: GREP_LIMIT_MS })),
  );
  log(`grep /${pattern}/ with a ${GREP_LIMIT_MS} ms limit stopped after ${grepStopMs} ms`);
  const slowestScanMs = Math.max(...scans.map((s) => s.ms));
  const slowestAssembleMs = Math.max(...assemble.map((r) => r.ms));
  return {
    name: "bounded-work",
    inputs,
    inputChars: 1_000_000,
    scans,
    assemble,
    grepLimitMs: GREP_LIMIT_MS,
    grepStopMs,
    targets: {
      scan1MBMs: check(slowestScanMs, "<=", 1_000, "ms"),
      assemble1MBMs: check(slowestAssembleMs, "<=", 1_000, "ms"),
      grepStopMs: check(grepStopMs, "<=", 2 * GREP_LIMIT_MS, "ms"),
    },
  };
}
