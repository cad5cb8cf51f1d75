// Replay benchmark of the window figures: drives the real engine through a 160-turn
// tool-heavy session with the budget sequences real hosts pass, and reports
// per pattern how much of its budget each prompt fills (calls whose history
// exceeds the budget), how many main prompts purely extend the previous one
// (provider prompt cache) and the tokens sent.
// Alone: node --import ./scripts/register-ts.mjs bench/budget-replay.mjs  (after npm run build)
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { createTokenCounter } from "../dist/src/tokens/count-message.js";
import { createShaper } from "../dist/src/assembly/shaper.js";
import { hostPromptBudget } from "../dist/src/host/host-budget.js";
import { HOST_LINES } from "../dist/src/host/host-lines.js";
import { FILL_FLOOR_FROM_BUDGET } from "../dist/src/window/elastic-window.js";
import { cacheStability, fillStats } from "../test/support/budget-metrics.ts";
import { driveTurn } from "./lib/drive-turn.mjs";
import { summaryTextOf } from "./lib/messages.mjs";
import { createBenchEngine } from "./lib/engine.mjs";
import { generateToolSession, SESSION_SEED } from "./lib/synthetic-session.mjs";
import { check, round } from "./lib/stats.mjs";

const IDS = { sessionId: "replay-session", sessionKey: "agent:main:replay" };
const FILL_TARGET = 0.6;
const CACHE_TARGET = 0.9;

/** Which phase budget applies at turn `t` (1-based) of `turns` when the budget steps through `budgets`. */
const phased = (budgets) => (t, turns) =>
  budgets[Math.min(budgets.length - 1, Math.floor(((t - 1) * budgets.length) / turns))];

/**
 * The recorded host budget sequences. `budgets(turn, turns)` gives the
 * assembles of one model request, in the host's order; `main` is the one whose
 * prompt the model receives.
 */
export const PATTERNS = {
  constant32k: {
    label: "constant 32k",
    generation: "2026.9",
    budgets: () => [32_000],
    main: 0,
    gated: { fill: true, cache: true },
  },
  triple96: {
    label: "2026.9.6 tool-loop triple (17,055 / 31,950 / 6,871)",
    generation: "2026.9",
    budgets: () => [17_055, 31_950, 6_871],
    main: 1,
    gated: { fill: true, cache: true },
  },
  growing: {
    label: "growing 8k → 16k → 32k → 128k",
    generation: "2026.9",
    budgets: (t, n) => [phased([8_000, 16_000, 32_000, 128_000])(t, n)],
    main: 0,
    gated: { fill: true },
  },
  shrinking: {
    label: "shrinking 128k → 32k → 8k",
    generation: "2026.9",
    budgets: (t, n) => [phased([128_000, 32_000, 8_000])(t, n)],
    main: 0,
    gated: { fill: true },
  },
  window424: {
    label: "2026.4.24 window budget (32k window passed whole)",
    generation: "2026.4",
    budgets: () => [32_000],
    main: 0,
    gated: {},
  },
};

/**
 * Replays one pattern. Every model request assembles once per budget of the
 * pattern; the history is the full session so far (as the host passes it).
 */
async function replayPattern(session, pattern, { config = {}, counter }) {
  const bench = await createBenchEngine(config, { generation: pattern.generation });
  const { services, engine } = bench;
  const history = [];
  // The history as the engine could send it: every tool output shaped with the configured (default) thresholds.
  const probe = createShaper(services, services.settings("main"), {
    identity: { agentId: "main", sessionKey: IDS.sessionKey, sessionId: IDS.sessionId },
    messages: history,
  });
  const calls = [];
  const mains = [];
  let shapedHistory = 0;
  let counted = 0;
  const measure = (view) => counter.countMessages(view.messages);
  // Tokens of the history as the engine could send it (every message shaped): the denominator of "history exceeds the
  // budget".
  const sendable = () => {
    for (; counted < history.length; counted++) shapedHistory += counter.countMessage(probe.shape(counted));
    return shapedHistory;
  };
  const started = performance.now();
  try {
    for (let t = 1; t <= session.turns.length; t++) {
      const request = async () => {
        const budgets = pattern.budgets(t, session.turns.length);
        for (let k = 0; k < budgets.length; k++) {
          const requested = budgets[k];
          const view = await engine.assemble({
            ...IDS,
            messages: history.slice(),
            tokenBudget: requested,
            model: "gpt-4o",
          });
          const budget = Number(hostPromptBudget(HOST_LINES[pattern.generation], requested));
          const call = {
            turn: t,
            role: k === pattern.main ? "main" : "loop",
            budget,
            tokens: measure(view),
            historyTokens: sendable(),
            first: view.messages[0]?.role,
            replanned: view.ledger?.plan.replanned ?? null,
            reason: view.ledger?.plan.reason,
            kept: view.messages.length,
            summary: summaryTextOf(view) ? counter.countText(summaryTextOf(view)) : 0,
          };
          calls.push(call);
          if (k === pattern.main) mains.push({ ...call, messages: view.messages, system: summaryTextOf(view) });
        }
      };
      const messages = await driveTurn(session.turns[t - 1], history, request);
      await engine.commitTurn({ ...IDS, advancementKey: `turn-${t}`, messages });
    }
  } finally {
    await bench.cleanup();
  }
  if (process.env.REPLAY_DEBUG)
    for (const c of calls
      .filter((c) => c.historyTokens > c.budget)
      .sort((a, b) => a.tokens / a.budget - b.tokens / b.budget)
      .slice(0, 8))
      console.log("  low fill", JSON.stringify(c));
  const fill = fillStats(calls);
  const fillMain = fillStats(calls.filter((c) => c.role === "main"));
  // Below FILL_FLOOR_FROM_BUDGET a re-plan keeps what the cache-price model says (src/window/window-anchors.ts,
  // replanTarget: about 48% of a 13,000-token budget), never less than the newest 3 turns: the fill floor is gated
  // only where the engine promises it.
  const fillLarge = fillStats(calls.filter((c) => c.budget >= FILL_FLOOR_FROM_BUDGET));
  // The summary block is part of the prompt (the system prompt's end): a changed block is a cache miss too.
  const cache = cacheStability(
    mains.map((m) => m.messages),
    mains.map((m) => m.system),
  );
  return {
    label: pattern.label,
    assembles: calls.length,
    requests: mains.length,
    fill: { calls: fill.calls, worst: round(fill.worst), p10: round(fill.p10), p50: round(fill.p50) },
    fillMain: { calls: fillMain.calls, worst: round(fillMain.worst), p10: round(fillMain.p10) },
    fillLarge: { calls: fillLarge.calls, worst: round(fillLarge.worst), p10: round(fillLarge.p10) },
    cache: { stable: cache.stable, compared: cache.compared, share: round(cache.share) },
    replans: mains.filter((m) => m.replanned).length,
    tokensSent: mains.reduce((s, m) => s + m.tokens, 0),
    overBudget: calls.filter((c) => c.tokens > c.budget).length,
    notUserFirst: calls.filter((c) => c.first !== undefined && c.first !== "user").length,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * Runs every pattern over the same generated session.
 * @param {{ turns?: number, only?: string[], config?: object, log?: (line: string) => void }} [options]
 */
export async function runBudgetReplayBench(options = {}) {
  const log = options.log ?? (() => {});
  const turns = options.turns ?? 160;
  const counter = createTokenCounter({ encoding: "o200k_base" });
  const patterns = {};
  for (const [key, pattern] of Object.entries(PATTERNS)) {
    if (options.only && !options.only.includes(key)) continue;
    const r = await replayPattern(generateToolSession({ turns }), pattern, { config: options.config, counter });
    patterns[key] = r;
    log(
      `${key.padEnd(12)} fill worst ${r.fill.worst} p10 ${r.fill.p10} (${r.fill.calls} calls over budget; from ${FILL_FLOOR_FROM_BUDGET} worst ${r.fillLarge.worst} of ${r.fillLarge.calls})  cache-stable ${(r.cache.share * 100).toFixed(1)}% (${r.replans} re-plans / ${r.requests})  sent ${r.tokensSent}  over budget ${r.overBudget}  not user-first ${r.notUserFirst}  ${r.ms} ms`,
    );
  }
  const targets = {};
  for (const [key, r] of Object.entries(patterns)) {
    const gated = PATTERNS[key].gated;
    if (gated.fill && r.fillLarge.calls > 0)
      targets[`fill_${key}`] = check(r.fillLarge.worst * 100, ">=", FILL_TARGET * 100, "%");
    if (gated.cache) targets[`cache_${key}`] = check(r.cache.share * 100, ">=", CACHE_TARGET * 100, "%");
    targets[`over_${key}`] = check(r.overBudget, "<=", 0, "prompts");
  }
  const baseline = await readFile(new URL("./budget-replay-baseline.json", import.meta.url), "utf8").then(
    JSON.parse,
    () => undefined,
  );
  return {
    name: "budget-replay",
    session: { turns, seed: SESSION_SEED },
    patterns,
    targets,
    ...(baseline && turns === 160 ? { baseline } : {}),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const only = process.argv.includes("--only")
    ? process.argv[process.argv.indexOf("--only") + 1].split(",")
    : undefined;
  const r = await runBudgetReplayBench({ only, log: console.log });
  console.log(JSON.stringify(r.targets, null, 1));
}
