// Benchmark 7: continuity. The 60-turn planted-facts conversation (40 facts
// planted in turns 1-15; test/support/planted-facts.ts, imported as TypeScript
// through Node's type stripping) runs through the engine with three forced
// compactions; the figure is the share of facts present, verbatim or as their
// handle, in the final assembled prompt (its messages, the summary message first).
// Naive tail truncation at the same budget is the control.
import { createBenchEngine } from "./lib/engine.mjs";
import { summaryTextOf, textOfMessage } from "./lib/messages.mjs";
import { check } from "./lib/stats.mjs";

const PLANTED = new URL("../test/support/planted-facts.ts", import.meta.url).href;
const IDS = { sessionId: "continuity", sessionKey: "agent:main:continuity" };
/** Budgets measured; the first one carries the target. */
export const CONTINUITY_BUDGETS = [8_000, 16_000];
const COMPACT_AFTER = [15, 30, 45];

async function runOne(planted, conv, budget) {
  const bench = await createBenchEngine();
  const { engine } = bench;
  const compactions = [];
  try {
    const starts = [...conv.turnStarts, conv.messages.length];
    for (let t = 0; t < conv.turnStarts.length; t++) {
      const turn = conv.messages.slice(starts[t], starts[t + 1]);
      await engine.assemble({ ...IDS, messages: conv.messages.slice(0, starts[t] + 1), tokenBudget: budget });
      await engine.commitTurn({ ...IDS, advancementKey: `turn-${t + 1}`, messages: turn });
      if (COMPACT_AFTER.includes(t + 1)) {
        await engine.assemble({ ...IDS, messages: conv.messages.slice(0, starts[t + 1]), tokenBudget: budget });
        const r = await engine.compact({ ...IDS, force: true, tokenBudget: budget });
        compactions.push({
          afterTurn: t + 1,
          compacted: r.compacted,
          reason: r.reason ?? null,
          tokensBefore: r.result?.tokensBefore ?? null,
          tokensAfter: r.result?.tokensAfter ?? null,
        });
      }
    }
    const question = {
      role: "user",
      content: "Before we ship: remind me of every decision, file, error, number and artifact we touched.",
      timestamp: 1_790_000_000_000,
    };
    const view = await engine.assemble({ ...IDS, messages: [...conv.messages, question], tokenBudget: budget });
    const prompt = JSON.stringify(view.messages);
    const recall = planted.factRecall(prompt, conv.facts);
    return {
      budget,
      recalled: recall.recalled,
      total: recall.total,
      share: recall.share,
      missing: recall.missing.map((f) => f.id),
      compactions,
      promptTokens: view.estimatedTokens,
      summaryChars: summaryTextOf(view).length,
      keptMessages: view.messages.length,
    };
  } finally {
    await bench.cleanup();
  }
}

function naiveRecall(planted, conv, budget) {
  let used = 0;
  let i = conv.messages.length;
  while (i > 0 && used + Math.ceil(textOfMessage(conv.messages[i - 1]).length / 4) <= budget)
    used += Math.ceil(textOfMessage(conv.messages[--i]).length / 4);
  return planted.factRecall(JSON.stringify(conv.messages.slice(i)), conv.facts).share;
}

/**
 * Runs the benchmark.
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function runContinuityBench(options = {}) {
  const log = options.log ?? (() => {});
  const planted = await import(PLANTED);
  const conv = planted.generatePlantedConversation();
  const rows = [];
  for (const budget of CONTINUITY_BUDGETS) {
    const row = await runOne(planted, conv, budget);
    row.naiveTailShare = naiveRecall(planted, conv, budget);
    rows.push(row);
    log(
      `budget ${budget}: ${row.recalled}/${row.total} facts (${(row.share * 100).toFixed(1)}%) in the final prompt (naive tail: ${(row.naiveTailShare * 100).toFixed(1)}%); compactions ${row.compactions.map((c) => (c.compacted ? "yes" : c.reason)).join(", ")}; missing ${row.missing.join(", ") || "none"}`,
    );
  }
  return {
    name: "continuity",
    conversation: {
      turns: conv.turnStarts.length,
      messages: conv.messages.length,
      facts: conv.facts.length,
      plantedInTurns: Math.max(...conv.facts.map((f) => f.turn)),
    },
    rows,
    targets: { recallAtSmallestBudget: check(rows[0].share * 100, ">=", 99, "%") },
  };
}
