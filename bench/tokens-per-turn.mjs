// Benchmarks 1, 4 and 8 on the 200-turn synthetic session: prompt tokens per
// turn for context-ledger (128k and 32k budgets, and 128k without offload),
// the legacy pass-through and naive tail truncation; prompt-cache stability;
// the offload ratio.
import { createTokenCounter } from "../dist/src/tokens/count-message.js";
import { generateToolSession } from "./lib/synthetic-session.mjs";
import { replayFunction, replayLedger } from "./lib/replay.mjs";
import { summaryTextOf, textOfMessage } from "./lib/messages.mjs";
import { check, round, summarize } from "./lib/stats.mjs";

/** Windows compared (tokens). */
export const WINDOWS = { "128k": 128_000, "32k": 32_000 };
const CACHE_TARGET = 0.9;

/** Legacy pass-through: every message, unchanged. */
const passThrough = (history) => history.slice();

/** Naive tail truncation: newest messages while chars/4 fits the budget; no offload, no pairing. */
const naiveTail = (budget) => (history) => {
  let used = 0;
  let i = history.length;
  while (i > 0) {
    const cost = Math.ceil(textOfMessage(history[i - 1]).length / 4);
    if (used + cost > budget && i < history.length) break;
    used += cost;
    i--;
  }
  return history.slice(i);
};

/** Per-message JSON equality of the previous prompt's messages with the head of this one. */
function extendsPrevious(prevJson, json) {
  if (json.length < prevJson.length) return false;
  for (let i = 0; i < prevJson.length; i++) if (prevJson[i] !== json[i]) return false;
  return true;
}

// JSON per message object: the pass-through's prompts repeat the whole history on every call.
const jsonOf = new WeakMap();
const toJson = (m) => {
  let j = jsonOf.get(m);
  if (j === undefined) {
    j = JSON.stringify(m);
    jsonOf.set(m, j);
  }
  return j;
};

/** Share of prompts (after the first) whose messages extend the previous prompt byte for byte. */
export function cacheStability(calls, { withSystem = false } = {}) {
  let stable = 0;
  let prev;
  let prevSys;
  for (const call of calls) {
    const messages = call.view ? call.view.messages : call.messages;
    const json = messages.map(toJson);
    const sys = call.view ? summaryTextOf(call.view) : "";
    if (prev && extendsPrevious(prev, json) && (!withSystem || sys === prevSys)) stable++;
    prev = json;
    prevSys = sys;
  }
  const n = Math.max(0, calls.length - 1);
  return { stable, compared: n, share: n ? round(stable / n) : 1 };
}

function overflowTurn(turns, window) {
  return turns.find((t) => t.prompt > window)?.turn ?? null;
}

function describeRun(name, run, windows) {
  const prompts = run.turns.map((t) => t.prompt);
  return {
    name,
    band: summarize(prompts),
    totalSent: run.turns.reduce((s, t) => s + t.sent, 0),
    modelCalls: run.calls.length,
    overflowTurn: Object.fromEntries(Object.entries(windows).map(([k, w]) => [k, overflowTurn(run.turns, w)])),
    perTurn: prompts,
  };
}

/**
 * Runs the benchmark.
 * @param {{ turns?: number, log?: (line: string) => void }} [options]
 */
export async function runTokensPerTurnBench(options = {}) {
  const log = options.log ?? (() => {});
  const turns = options.turns ?? 200;
  const counter = createTokenCounter({ encoding: "o200k_base" });
  const measure = (messages, system) => counter.countMessages(messages) + (system ? counter.countText(system) : 0);

  const genStart = performance.now();
  const session = generateToolSession({ turns });
  const outputs = summarize(session.outputBytes);
  log(
    `session: ${turns} turns, ${session.outputBytes.length} tool outputs, ${(session.outputBytes.reduce((s, b) => s + b, 0) / 1_048_576).toFixed(1)} MB (p50 ${Math.round(outputs.p50 / 1024)} KB, max ${Math.round(outputs.max / 1024)} KB), generated in ${Math.round(performance.now() - genStart)} ms`,
  );

  const runs = {};
  const t0 = performance.now();
  runs.passThrough = await replayFunction(session, { view: passThrough, measure });
  log(`legacy pass-through replayed in ${Math.round(performance.now() - t0)} ms (exact count of every message)`);
  for (const [label, w] of Object.entries(WINDOWS)) {
    runs[`naive${label}`] = await replayFunction(session, { view: naiveTail(w), measure });
  }
  for (const [label, w] of Object.entries(WINDOWS)) {
    const t = performance.now();
    runs[`ledger${label}`] = await replayLedger(generateToolSession({ turns }), { budget: w, measure });
    log(`context-ledger @${label} replayed in ${Math.round(performance.now() - t)} ms`);
  }
  const t1 = performance.now();
  runs.ledgerNoOffload128k = await replayLedger(generateToolSession({ turns }), {
    budget: WINDOWS["128k"],
    measure,
    config: { offload: { enabled: false } },
  });
  log(`context-ledger @128k without offload replayed in ${Math.round(performance.now() - t1)} ms`);

  const engines = {
    "context-ledger @128k": describeRun("context-ledger @128k", runs.ledger128k, WINDOWS),
    "context-ledger @32k": describeRun("context-ledger @32k", runs.ledger32k, WINDOWS),
    "legacy pass-through": describeRun("legacy pass-through", runs.passThrough, WINDOWS),
    "naive tail @128k": describeRun("naive tail @128k", runs.naive128k, WINDOWS),
    "naive tail @32k": describeRun("naive tail @32k", runs.naive32k, WINDOWS),
    "context-ledger @128k, offload off": describeRun(
      "context-ledger @128k, offload off",
      runs.ledgerNoOffload128k,
      WINDOWS,
    ),
  };
  for (const e of Object.values(engines)) {
    log(
      `${e.name.padEnd(34)} prompt p5/p50/p95 ${e.band.p5}/${e.band.p50}/${e.band.p95}  max ${e.band.max}  sent ${e.totalSent}  overflow 128k@${e.overflowTurn["128k"] ?? "never"} 32k@${e.overflowTurn["32k"] ?? "never"}`,
    );
  }

  const cache = {};
  for (const [key, label] of [
    ["ledger128k", "context-ledger @128k"],
    ["ledger32k", "context-ledger @32k"],
    ["naive128k", "naive tail @128k"],
    ["naive32k", "naive tail @32k"],
    ["passThrough", "legacy pass-through"],
  ]) {
    const run = runs[key];
    cache[label] = {
      messages: cacheStability(run.calls),
      ...(key.startsWith("ledger")
        ? {
            withSystemPrompt: cacheStability(run.calls, { withSystem: true }),
            replans: run.calls.filter((c) => c.replanned).length,
          }
        : {}),
    };
    log(
      `cache stability ${label.padEnd(22)} ${(cache[label].messages.share * 100).toFixed(1)}% of ${cache[label].messages.compared} prompts extend the previous one${cache[label].replans !== undefined ? ` (${cache[label].replans} re-plans; with the summary block ${(cache[label].withSystemPrompt.share * 100).toFixed(1)}%)` : ""}`,
    );
  }

  const on = engines["context-ledger @128k"];
  const off = engines["context-ledger @128k, offload off"];
  // Once the history outgrows the budget both runs fill it, so the telling ratio is how much
  // conversation a prompt carries: messages kept per prompt, and tokens per kept message.
  const keptOn = summarize(runs.ledger128k.calls.map((c) => c.kept));
  const keptOff = summarize(runs.ledgerNoOffload128k.calls.map((c) => c.kept));
  const tokPerMsg = (run) => summarize(run.calls.map((c) => c.tokens / Math.max(1, c.kept)));
  const offload = {
    p50Ratio: round(on.band.p50 / off.band.p50),
    totalRatio: round(on.totalSent / off.totalSent),
    withP50: on.band.p50,
    withoutP50: off.band.p50,
    keptMessagesP50: { with: keptOn.p50, without: keptOff.p50, ratio: round(keptOn.p50 / keptOff.p50) },
    tokensPerKeptMessageP50: {
      with: tokPerMsg(runs.ledger128k).p50,
      without: tokPerMsg(runs.ledgerNoOffload128k).p50,
      ratio: round(tokPerMsg(runs.ledger128k).p50 / tokPerMsg(runs.ledgerNoOffload128k).p50),
    },
  };
  log(
    `offload ratio @128k: p50 prompt ${offload.withP50} vs ${offload.withoutP50} tokens (x${offload.p50Ratio}); total sent x${offload.totalRatio}; messages kept per prompt p50 ${keptOn.p50} vs ${keptOff.p50} (x${offload.keptMessagesP50.ratio}); tokens per kept message x${offload.tokensPerKeptMessageP50.ratio}`,
  );

  const assembleMs = summarize(runs.ledger128k.calls.map((c) => c.ms));
  const honest = runs.ledger128k.calls.concat(runs.ledger32k.calls).filter((c) => c.tokens > c.estimated).length;
  const overBudget = {
    "128k": runs.ledger128k.calls.filter((c) => c.tokens > WINDOWS["128k"]).length,
    "32k": runs.ledger32k.calls.filter((c) => c.tokens > WINDOWS["32k"]).length,
  };
  const pt = engines["legacy pass-through"];
  const headline = {
    totalSentRatioVsPassThrough: round(on.totalSent / pt.totalSent),
    p50RatioVsPassThrough: round(on.band.p50 / pt.band.p50),
  };
  return {
    name: "tokens-per-turn",
    session: {
      turns,
      toolOutputs: session.outputBytes.length,
      outputBytes: outputs,
      totalOutputBytes: session.outputBytes.reduce((s, b) => s + b, 0),
    },
    windows: WINDOWS,
    engines,
    cacheStability: cache,
    offload,
    assembleMsIn200TurnSession: assembleMs,
    estimatedBelowMeasured: honest,
    ledgerPromptsOverWindow: overBudget,
    headline,
    targets: {
      cacheStability128k: check(cache["context-ledger @128k"].messages.share * 100, ">=", CACHE_TARGET * 100, "%"),
      cacheStability32k: check(cache["context-ledger @32k"].messages.share * 100, ">=", CACHE_TARGET * 100, "%"),
      neverOverflows128k: check(overBudget["128k"], "<=", 0, "prompts"),
      neverOverflows32k: check(overBudget["32k"], "<=", 0, "prompts"),
    },
  };
}
