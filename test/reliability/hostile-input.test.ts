import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createTokenCounter, type TokenCounter } from "../../src/tokens/count-message.js";
import { encodingForModel } from "../../src/tokens/encoder.js";
import { createHostileGenerator } from "../support/hostile-gen.js";
import { createTestEngine } from "../support/engine-harness.js";
import { memoryTmpRoot } from "../support/memory-tmp.js";
import { useTempDir } from "../support/temp-dir.js";

const CALLS = Number(process.env.HOSTILE_CALLS ?? 10_000);
const METHODS = [
  ["assemble", 0.34],
  ["commitTurn", 0.2],
  ["afterTurn", 0.08],
  ["ingest", 0.07],
  ["ingestBatch", 0.07],
  ["compact", 0.07],
  ["maintain", 0.07],
  ["bootstrap", 0.04],
  ["prepareSubagentSpawn", 0.03],
  ["onSubagentEnded", 0.02],
  ["dispose", 0.01],
] as const;
type Method = (typeof METHODS)[number][0];

// What the engine's error lines look like: `<op> failed <context>: <what was expected, what was got>`.
const ERROR_LINE = /^error \[context-ledger\] (\w+) (failed .*: \S.*|fallback failed: \S.*)$/s;

describe("hostile input: 10,000 malformed or extreme lifecycle calls", () => {
  const tmp = useTempDir("ledger-hostile-");
  it("never throws, honours every sane budget exactly (or flags overBudget), and names each problem in the error log", async () => {
    // The state dir takes about 500 MB of fsynced writes, and this run tests input handling (crash.test.ts kills
    // writers on the real disk): in memory when the machine has room, where fsync is free.
    const t = await createTestEngine({ offload: { maxChars: 2_000, structuredMaxChars: 1_000 } }, "2026.9", {
      tmpRoot: memoryTmpRoot(),
    });
    const gen = createHostileGenerator(20261122);
    const counters = new Map<string, TokenCounter>();
    const recount = (model: unknown, out: { messages: unknown[] }) => {
      const encoding = encodingForModel(typeof model === "string" ? model : undefined, "auto");
      let c = counters.get(encoding);
      if (!c) counters.set(encoding, (c = createTokenCounter({ encoding })));
      return c.countMessages(out.messages);
    };
    // A host transcript outside the state dir.
    const transcript = path.join(tmp(), "transcript.jsonl");
    await fsp.writeFile(
      transcript,
      `not json\n{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"${"z".repeat(9000)}"}]}}\n{"broken":\n`,
    );
    const sessions: unknown[] = [
      "agent:main:a",
      "agent:main:b",
      "agent:ops:c",
      "../../../../etc",
      "agent:..:x",
      "agent:main:\u0000nul",
      "\ud800",
      "",
      null,
      7,
      { k: 1 },
      "agent:main:" + "l".repeat(5_000),
    ];
    const histories = new Map<unknown, unknown[]>();
    const thrown: string[] = [];
    const budgetBreaks: string[] = [];
    const flaggedOver: string[] = [];
    const recountBreaks: string[] = [];
    const tally: Record<string, number> = {};
    const timing: Record<string, number> = {};
    let saneAssembles = 0;

    // Calls run 8 at a time (a gateway overlaps turns too); their params are drawn in order from the seeded generator.
    let next = 0;
    const runOne = async (i: number): Promise<void> => {
      let r = gen.rand();
      let method: Method = "assemble";
      for (const [m, p] of METHODS) {
        if (r < p) {
          method = m;
          break;
        }
        r -= p;
      }
      tally[method] = (tally[method] ?? 0) + 1;
      const sessionKey = gen.pick(sessions);
      const history = histories.get(sessionKey) ?? [];
      histories.set(sessionKey, history);
      if (gen.chance(0.4)) history.push(...gen.goodTurn(`${i}`));
      else for (let n = 1 + gen.int(3); n > 0; n--) history.push(gen.message());
      // Messages change between calls: replaced, dropped, or edited in place by a careless caller.
      if (history.length > 0 && gen.chance(0.1)) history[gen.int(history.length)] = gen.message();
      if (history.length > 0 && gen.chance(0.03)) history.splice(gen.int(history.length), 1);
      if (history.length > 24) history.splice(0, history.length - 24);
      const messages: unknown = gen.chance(0.05) ? gen.pick<unknown>(["nope", 5, null, { length: 3 }]) : [...history];
      const model = gen.pick<unknown>([undefined, "gpt-4", "gpt-4o", "claude", 12, null]);
      const tokenBudget = gen.budget();
      const base = gen.chance(0.04)
        ? gen.pick<unknown>([null, undefined, 42, "params", [], Symbol.for("x")])
        : {
            sessionId: gen.pick<unknown>(["s1", "", null, 9, "../x"]),
            sessionKey,
            messages,
            tokenBudget,
            model,
            advancementKey: gen.key(),
            message: gen.message(),
            prePromptMessageCount: gen.pick<unknown>([0, -3, 2, 1e9, Number.NaN, "1"]),
            force: gen.pick<unknown>([true, false, "yes", undefined]),
            currentTokenCount: gen.pick<unknown>([undefined, -5, Number.NaN, 1e12, 3000]),
            sessionFile: gen.pick<unknown>([undefined, transcript, "/nonexistent/dir/s.jsonl", "agent:main:a", 5]),
            runtimeContext: gen.pick<unknown>([
              undefined,
              null,
              {
                rewriteTranscriptEntries: async () => {
                  throw new Error("host refused the rewrite");
                },
              },
              { rewriteTranscriptEntries: async () => ({ changed: "maybe" }) },
            ]),
            parentSessionKey: sessionKey,
            childSessionKey: gen.pick<unknown>(["agent:main:child", null, 3, "../../c"]),
            contextMode: gen.pick<unknown>(["isolated", "fork", "weird", undefined]),
            sessionTarget: gen.chance(0.1)
              ? gen.pick<unknown>([{ agentId: "ops", sessionKey: "agent:ops:t" }, { agentId: 5 }, "target"])
              : undefined,
          };
      const t0 = performance.now();
      try {
        const engine = t.engine as unknown as Record<Method, (p: unknown) => Promise<unknown>>;
        const out = await engine[method](base);
        if (method === "assemble") {
          const view = out as { messages: unknown[]; estimatedTokens: number };
          expect(Array.isArray(view.messages)).toBe(true);
          expect(Number.isFinite(view.estimatedTokens)).toBe(true);
          if (typeof tokenBudget === "number" && Number.isFinite(tokenBudget) && tokenBudget >= 512) {
            saneAssembles++;
            const plan = (view as { ledger?: { plan?: { overBudget?: boolean; reason?: string } } }).ledger?.plan;
            if (
              !(view.estimatedTokens <= tokenBudget) &&
              plan?.overBudget === true &&
              plan.reason === "mandatory-only"
            ) {
              // Open issue (reported): a newest user turn whose blocks cannot be reduced (tool-call or unknown
              // blocks inside a user message) is kept whole; the engine flags it, it is counted, never hidden.
              flaggedOver.push(`call ${i}: ${view.estimatedTokens} > ${tokenBudget}`);
            } else if (!(view.estimatedTokens <= tokenBudget)) {
              budgetBreaks.push(`call ${i}: ${view.estimatedTokens} > ${tokenBudget}`);
              if (process.env.HOSTILE_DEBUG)
                console.info(
                  `break ${i}`,
                  JSON.stringify((view as { ledger?: unknown }).ledger),
                  JSON.stringify(view.messages, (_k, v) =>
                    typeof v === "string" && v.length > 80 ? `${v.slice(0, 60)}…(${v.length})` : v,
                  ).slice(0, 3000),
                );
            }
            const exact = recount(model, view);
            if (exact !== view.estimatedTokens)
              recountBreaks.push(
                `call ${i}: recount ${exact} != estimated ${view.estimatedTokens} (budget ${tokenBudget})`,
              );
            if (exact > tokenBudget && !flaggedOver.some((f) => f.startsWith(`call ${i}:`)))
              budgetBreaks.push(`call ${i}: recount ${exact} > ${tokenBudget}`);
          }
        }
      } catch (err) {
        thrown.push(`call ${i} ${method}: ${(err as Error)?.stack ?? String(err)}`);
      }
      const ms = performance.now() - t0;
      timing[method] = (timing[method] ?? 0) + ms;
      if (ms > 500 && process.env.HOSTILE_DEBUG)
        console.info(
          `slow call ${i} ${method} ${Math.round(ms)} ms, ${Array.isArray(messages) ? messages.length : "-"} messages`,
        );
    };
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < CALLS) await runOne(next++);
      }),
    );
    await t.engine.dispose();

    const errors = t.logs.filter((l) => l.startsWith("error"));
    const unnamed = errors.filter((l) => !ERROR_LINE.test(l));
    console.info(
      `[reliability] hostile input: ${CALLS} calls ${JSON.stringify(tally)}, ${saneAssembles} assembles with a sane budget, ${errors.length} error lines, ${thrown.length} thrown, ${flaggedOver.length} flagged over budget (unreducible newest user turn: ${flaggedOver.join("; ")})`,
    );
    if (process.env.HOSTILE_DEBUG)
      console.info(JSON.stringify(Object.fromEntries(Object.entries(timing).map(([k, v]) => [k, Math.round(v)]))));
    expect(thrown.slice(0, 5)).toEqual([]);
    expect(budgetBreaks.slice(0, 5)).toEqual([]);
    expect(flaggedOver.length).toBeLessThan(CALLS / 1_000);
    expect(recountBreaks.slice(0, 5)).toEqual([]);
    expect(unnamed.slice(0, 5)).toEqual([]);
    expect(saneAssembles).toBeGreaterThan(CALLS / 10);
    await t.cleanup();
  }, 400_000);
});
