import { afterEach, describe, expect, it } from "vitest";
import { textOf } from "../../src/host/messages.js";
import { cacheStability } from "../support/budget-metrics.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";
import { conversationOf, summaryOf } from "../support/view-summary.js";

const HANDLE = /ledger:v1:sha256:[0-9a-f]{64}/;

/** A tool-heavy history: `turns` turns of a question, two tool rounds (one `read`) and an answer. */
function history(turns: number, chars = 3_000) {
  const out: unknown[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(user(`Turn ${t}: check shard ${t} and summarise the failures you see in it.`));
    out.push(
      call(`call_${t}_a-x`, "exec", { command: `run ${t}` }),
      result(`call_${t}_a-x`, "exec", logText(chars, t * 100)),
    );
    out.push(
      call(`call_${t}_b-x`, "read", { path: `shard-${t}.md` }),
      result(`call_${t}_b-x`, "read", logText(900, t * 100 + 50)),
    );
    out.push(assistant(`Shard ${t}: ${"nothing failed in this batch. ".repeat(20)}`));
  }
  return out;
}

/** `turns` turns of a question, one `exec` printing 40,000 chars (offloaded) and a 2,000-char answer. */
function execTurns(turns: number) {
  const out: unknown[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(user(`Turn ${t}: run the report for shard ${t} and tell me what changed.`));
    out.push(
      call(`call_${t}_x`, "exec", { command: `report ${t}` }),
      result(`call_${t}_x`, "exec", logText(40_000, t)),
    );
    out.push(assistant(`Shard ${t}: ${"the numbers moved within the usual range. ".repeat(48)}`));
  }
  return out;
}

/**
 * The views a session of its own gets at `tokenBudget` with no other call in between: one assemble per prefix of `all`,
 * from `from` messages on, `step` more each time.
 */
async function viewsAlone(
  engine: Awaited<ReturnType<typeof createTestEngine>>["engine"],
  all: unknown[],
  options: { from: number; step: number; tokenBudget: number; model?: string },
): Promise<unknown[][]> {
  const views: unknown[][] = [];
  const session = { sessionId: "alone", sessionKey: "agent:main:alone" };
  for (let n = options.from; n <= all.length; n += options.step) {
    const out = await engine.assemble({
      ...session,
      messages: all.slice(0, n),
      tokenBudget: options.tokenBudget,
      ...(options.model ? { model: options.model } : {}),
    });
    views.push(out.messages);
  }
  return views;
}

describe("elastic, cache-aware windows", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>> | undefined;
  afterEach(async () => t?.cleanup());

  it("keeps one window per budget class: the small in-loop call does not shrink the main call's window", async () => {
    t = await createTestEngine();
    const session = { sessionId: "s", sessionKey: "agent:main:triple" };
    const all = history(60);
    const mains: unknown[][] = [];
    const systems: (string | undefined)[] = [];
    for (let n = 120; n <= all.length; n += 6) {
      const messages = all.slice(0, n);
      for (const budget of [17_055, 31_950, 6_871]) {
        const out = await t.engine.assemble({ ...session, messages, tokenBudget: budget });
        if (budget === 31_950) {
          mains.push(out.messages);
          systems.push(summaryOf(out));
        }
      }
    }
    // The main call's windows are the ones it gets with no small call in between.
    const alone = await viewsAlone(t.engine, all, { from: 120, step: 6, tokenBudget: 31_950 });
    expect(mains.map((m) => m.length)).toEqual(alone.map((m) => m.length));
    // The summary block counts: the small classes advance the summary record, and the main call must not show it.
    expect(cacheStability(mains, systems).share).toBeGreaterThanOrEqual(0.8);
  });

  it("leaves a standing window's summary block as it was when another budget class seals a pack", async () => {
    t = await createTestEngine();
    const session = { sessionId: "s", sessionKey: "agent:main:seal" };
    const all = history(120, 1_500);
    const store = t.services.store("main");
    const packs = async () => {
      let n = 0;
      for await (const meta of store.list()) if (meta.kind === "checkpoint") n++;
      return n;
    };
    let previous: { conversation: unknown[]; summary: string } | undefined;
    let standingAcrossSeal = 0;
    for (let n = 60; n <= all.length; n += 6) {
      const messages = all.slice(0, n);
      const sealedBefore = await packs();
      const main = await t.engine.assemble({ ...session, messages, tokenBudget: 31_950 });
      for (const tokenBudget of [17_055, 6_871]) await t.engine.assemble({ ...session, messages, tokenBudget });
      const sealed = (await packs()) > sealedBefore;
      const now = { conversation: conversationOf(main), summary: summaryOf(main) };
      // The main window stood (its conversation extends the one before): its block is byte-equal, seal or none.
      if (previous && cacheStability([previous.conversation, now.conversation]).stable === 1) {
        expect(now.summary).toBe(previous.summary);
        if (sealed) standingAcrossSeal++;
      }
      previous = now;
    }
    // Not vacuous: the small classes sealed packs while the main window stood.
    expect(standingAcrossSeal).toBeGreaterThan(0);
  });

  it("keeps the turn's view whole when it is handed back to in-loop calls it fits, and the turn's window as alone", async () => {
    // 2026.9.6's triple at a 32k window: the first call plans the transcript, the next two get its view back at other
    // budgets; the host's overhead as measured there, so its memory-flush threshold binds every class.
    const hostConfig = {
      models: { providers: { mock: { models: [{ id: "mock-model", contextWindow: 32_000, maxTokens: 4_096 }] } } },
    };
    t = await createTestEngine({}, "2026.9", { hostConfig });
    t.services.requestOverhead.set("main", { systemChars: 22_060, toolsChars: 9_805 });
    const model = "mock-model";
    const all = execTurns(24);
    const firsts: number[] = [];
    let handedBack = 0;
    for (let n = 4; n <= all.length; n += 4) {
      const session = { sessionId: "s", sessionKey: "agent:main:handed-back" };
      const first = await t.engine.assemble({ ...session, messages: all.slice(0, n), tokenBudget: 17_198, model });
      for (const tokenBudget of [31_943, 21_861]) {
        const again = await t.engine.assemble({ ...session, messages: first.messages, tokenBudget, model });
        expect(again.messages, `turn at ${n} messages, in-loop budget ${tokenBudget}`).toEqual(first.messages);
        if (first.messages.length < n) handedBack++;
      }
      firsts.push(first.messages.length);
    }
    expect(handedBack, "views that carried a summary were handed back").toBeGreaterThan(0);
    const alone = await viewsAlone(t.engine, all, { from: 4, step: 4, tokenBudget: 17_198, model });
    expect(firsts).toEqual(alone.map((m) => m.length));
  });

  it("re-plans upward when the budget grows past the class of the kept window", async () => {
    t = await createTestEngine();
    const session = { sessionId: "s", sessionKey: "agent:main:grow" };
    const messages = history(80);
    const small = await t.engine.assemble({ ...session, messages, tokenBudget: 8_000 });
    const big = await t.engine.assemble({ ...session, messages: [...messages, user("and now?")], tokenBudget: 64_000 });
    expect(big.estimatedTokens).toBeGreaterThan(0.65 * 64_000);
    expect(big.messages.length).toBeGreaterThan(small.messages.length);
  });

  it("clears old tool results at a re-plan, keeping the newest N, excluded tools and the current turn; offloaded ones stay fetchable", async () => {
    t = await createTestEngine({ clearing: { keepToolResults: 3, excludeTools: ["re?d"] } });
    const session = { sessionId: "s", sessionKey: "agent:main:clear" };
    // Every 4th exec output is over the offload threshold (a stub with a handle); the others stay inline.
    const base = history(40);
    const messages = base.map((m) => {
      const r = m as { role: string; toolName?: string; toolCallId?: string };
      const n = Number(r.toolCallId?.split("_")[1]);
      return r.role === "toolResult" && r.toolName === "exec" && n % 4 === 0
        ? result(r.toolCallId!, "exec", logText(20_000, n))
        : m;
    });
    messages.push(
      user("Last question: which shard failed?"),
      call("call_z-x", "exec", { command: "z" }),
      result("call_z-x", "exec", logText(3_000, 9)),
    );
    const out = await t.engine.assemble({ ...session, messages, tokenBudget: 32_000 });
    const results = out.messages.filter((m) => (m as { role: string }).role === "toolResult") as {
      toolName: string;
      toolCallId: string;
    }[];
    const cleared = results.filter((m) => textOf(m).startsWith("[context-ledger cleared]"));
    expect(cleared.length).toBeGreaterThan(0);
    expect(cleared.every((m) => m.toolName === "exec")).toBe(true);
    const execResults = results.filter((m) => m.toolName === "exec");
    for (const m of execResults.slice(-3)) expect(textOf(m).startsWith("[context-ledger cleared]")).toBe(false);
    const withHandle = cleared.filter((m) => HANDLE.test(textOf(m)));
    expect(withHandle.length).toBeGreaterThan(0);
    for (const m of withHandle) {
      const original = messages.find((x) => (x as { toolCallId?: string }).toolCallId === m.toolCallId);
      expect(await t.services.store("main").readText(HANDLE.exec(textOf(m))![0])).toBe(textOf(original));
    }
    for (const m of cleared.filter((c) => !HANDLE.test(textOf(c)))) expect(textOf(m)).toContain("rerun the tool");
  });

  it("keeps the clearing boundary while the window stands, so later prompts extend the earlier one", async () => {
    t = await createTestEngine({ clearing: { keepToolResults: 2 } });
    const session = { sessionId: "s", sessionKey: "agent:main:stable" };
    const all = history(70);
    const prompts: unknown[][] = [];
    for (let n = 300; n <= 330; n += 3)
      prompts.push((await t.engine.assemble({ ...session, messages: all.slice(0, n), tokenBudget: 32_000 })).messages);
    const c = cacheStability(prompts);
    expect(c.stable).toBeGreaterThanOrEqual(c.compared - 1);
  });
});

describe("a live question the host appends after the view (assemble's prompt)", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>> | undefined;
  afterEach(async () => t?.cleanup());

  /** Turn starts of a session whose turns each run one `exec` and end with a long answer (about 3k tokens a turn). */
  async function turnStarts(tokenBudget: number, turns = 12) {
    t = await createTestEngine();
    const session = { sessionId: "s", sessionKey: `agent:main:live-${tokenBudget}` };
    const history: unknown[] = [];
    const views: { messages: unknown[]; estimatedTokens: number }[] = [];
    for (let n = 1; n <= turns; n++) {
      const question = `Turn ${n}: run the nightly report and explain every change.`;
      views.push(await t.engine.assemble({ ...session, messages: [...history], tokenBudget, prompt: question }));
      history.push(
        user(question),
        call(`call_${n}-x`, "exec", { command: `report ${n}` }),
        result(`call_${n}-x`, "exec", logText(20_000, n)),
        assistant(`Answer ${n}: ${"the report moved. ".repeat(600)}`),
      );
    }
    return views;
  }
  const answersIn = (view: { messages: unknown[] }) =>
    view.messages.map(textOf).filter((text) => text.startsWith("Answer "));

  it("when one finished turn fills the room, keeps none at a re-plan so that the next turn start extends the view", async () => {
    const views = await turnStarts(7_000);
    for (const v of views) expect(v.estimatedTokens).toBeLessThanOrEqual(7_000);
    // From turn 2 on (the history holds a turn) at least one turn start in two extends the previous view.
    const later = cacheStability(views.slice(1).map((v) => v.messages));
    expect(later.stable * 2).toBeGreaterThanOrEqual(later.compared);
    // A view that keeps a turn keeps the newest finished one, whole.
    for (const [i, v] of views.entries()) {
      const answers = answersIn(v);
      if (answers.length > 0) expect(answers.map((a) => a.split(":")[0])).toEqual([`Answer ${i}`]);
    }
  });

  it("keeps three finished turns at a re-plan while the room they leave holds the next turn", async () => {
    const views = await turnStarts(20_000);
    for (const [i, v] of views.entries()) expect(answersIn(v).length).toBeGreaterThanOrEqual(Math.min(i, 3));
  });
});

describe("a host that passes a tail of the transcript (2026.9.6)", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>> | undefined;
  afterEach(async () => t?.cleanup());

  /**
   * 9.6's shape, as recorded in a real gateway: once the transcript is long the host
   * passes only its newest turns (dropping whole turns from the front), assembles three
   * times per request, and hands the first call's view to the next two.
   */
  async function replayTail(turns: number, keepTurns: number) {
    t = await createTestEngine();
    const session = { sessionId: "s", sessionKey: "agent:main:tail" };
    const all = history(turns, 6_000);
    const perTurn = 6;
    const mains: { messages: unknown[]; system: string }[] = [];
    for (let n = 1; n <= turns; n++) {
      const upTo = n * perTurn - perTurn + 1; // the new user message, before the turn's tool calls
      const messages = all.slice(Math.max(0, upTo - keepTurns * perTurn - 1), upTo);
      const first = await t.engine.assemble({ ...session, messages, tokenBudget: 17_210 });
      const second = await t.engine.assemble({ ...session, messages: first.messages, tokenBudget: 31_943 });
      await t.engine.assemble({ ...session, messages: second.messages, tokenBudget: 21_861 });
      mains.push({ messages: first.messages, system: summaryOf(first) });
    }
    return mains;
  }

  it("when the host's cut, not the budget, trims history, the window leaves room for the next cuts", async () => {
    // Everything the host passes fits the budget; the host's byte-capped tail is what drops turns (9.6 at 64k+).
    t = await createTestEngine();
    const session = { sessionId: "s", sessionKey: "agent:main:cut" };
    const all = history(40, 2_000);
    const perTurn = 6;
    const keepTurns = 12;
    const mains: unknown[][] = [];
    for (let n = 1; n <= 40; n++) {
      const upTo = n * perTurn - perTurn + 1;
      const messages = all.slice(Math.max(0, upTo - keepTurns * perTurn - 1), upTo);
      const first = await t.engine.assemble({ ...session, messages, tokenBudget: 100_000 });
      const second = await t.engine.assemble({ ...session, messages: first.messages, tokenBudget: 128_000 });
      // The engine's own view handed back is not a host cut: the second call keeps all of it.
      expect(second.messages.length).toBe(first.messages.length);
      mains.push(first.messages);
    }
    const extending = mains
      .slice(1)
      .filter((next, i) => mains[i]!.every((m, k) => JSON.stringify(m) === JSON.stringify(next[k]))).length;
    console.info(`[cut] ${extending}/${mains.length - 1} main calls extend the previous one`);
    // Keeping everything passed would miss on every turn the host cut (28 of 39); a window 65% deep misses about one in
    // five.
    expect(extending / (mains.length - 1)).toBeGreaterThanOrEqual(0.75);
    // It still keeps most of what the host passed, and the newest turn.
    const last = mains.at(-1)!;
    expect(last.length).toBeGreaterThanOrEqual(Math.floor(0.5 * keepTurns * perTurn));
    expect(textOf(last.at(-1))).toContain("Turn 39");
  });

  it("keeps the window and the summary block append-stable while the host slides its tail", async () => {
    const mains = await replayTail(60, 30);
    // Pure extension including the summary block (the system prompt addition).
    let stable = 0;
    for (let i = 1; i < mains.length; i++) {
      const prev = mains[i - 1]!;
      const next = mains[i]!;
      const extends_ =
        prev.system === next.system &&
        prev.messages.every((m, k) => JSON.stringify(m) === JSON.stringify(next.messages[k]));
      if (extends_) stable++;
    }
    const share = stable / (mains.length - 1);
    console.info(`[tail] ${stable}/${mains.length - 1} main calls extend the previous one (summary included)`);
    expect(share).toBeGreaterThanOrEqual(0.75);
    // The summary is there once history left the window, and never names message indices (they move with the host's
    // tail).
    const withSummary = mains.filter((m) => m.system.length > 0);
    expect(withSummary.length).toBeGreaterThan(0);
    for (const m of withSummary) expect(m.system).not.toMatch(/msgs \d|messages \d/);
  });
});
