/**
 * On 2026.9.6: a 20-turn tool-heavy session (each turn an `exec` printing
 * 40,000 chars, window 32,000, maxTokens 4,096). Every turn is answered by the model
 * and no request goes out with an output allowance below maxTokens (the host's
 * OpenAI-completions transport clamps it to window − its chars/4 × 1.25 estimate − 1).
 * Records per-request budget use and cache stability (is each request's message list
 * a pure extension of the previous request's?) for the report.
 */
import { expect } from "vitest";
import type { MockRequest } from "../mock-model.js";
import { execTurnScript } from "../mock-scripts.js";
import { isInternalContextMessage, textOfMessage } from "../mock-wire.js";
import { SUMMARY_OPEN } from "../prompt-contract.js";
import { createOpenAIRules, inputCost } from "../openai-rules.js";
import {
  countMessageTokens,
  loadTokenCounter,
  MESSAGE_FRAMING_TOKENS,
  messageText,
  type TokenCounter,
} from "../token-count.js";
import { turnMessage } from "../workloads.js";
import { answerCountsInHistory, describeSeenTurn, sendTurnAsSeen } from "../turn-as-seen.js";
import type { HostVersion } from "../host-install.js";
import type { HostScenario, ScenarioModel, ScenarioSession } from "./scenario.js";
import { extractJson, runLedgerCli } from "../openclaw-cli.js";
import type { StatusReport } from "../../../src/cli/inspect/status-report.js";
import type { ViewRecord } from "../../../src/state/view-record.js";
import { grantCliScopes } from "./cli-scopes.js";
import { requestOverhead } from "./reset-loop.js";
import { outputAllowance, readFigures, recordFigures, transcriptSize, type TranscriptSize } from "./turn-figures.js";

/** Turns, per-turn tool output and answer of a long session. */
export interface LongSessionWorkload {
  turns: number;
  outputChars: number;
  answerChars: number;
}

/** Turns and per-turn tool output of the long session. */
export const LONG_SESSION = {
  turns: 20,
  outputChars: 40_000,
  answerChars: 2_000,
} as const satisfies LongSessionWorkload;

/**
 * The host transport's own estimate of a request (2026.9.6 `estimateOpenAICompletionsInputTokens`): chars/4 × 1.25,
 * non-Latin chars count 4.
 */
export function hostTransportEstimate(request: MockRequest): number {
  const { messages, tools } = request.body as { messages?: unknown; tools?: unknown };
  const text = JSON.stringify(messages ?? []) + JSON.stringify(tools ?? []);
  let units = 0;
  for (const ch of text) units += (ch.codePointAt(0) ?? 0) > 0x24f ? 4 : 1;
  return Math.ceil((units / 4) * 1.25);
}

/**
 * The prompt room a host line leaves, in the transport's units (chars/4 × 1.25): window − maxTokens
 * (its output clamp), or, where lower, the provider tokens at which 2026.8.x onwards start their own
 * pre-compaction turn (memory-core's `buildMemoryFlushPlan`: window − min(20,000, window / 4) − 4,000),
 * at the transport's factor. Stated from the host's dist, not from the engine's table.
 */
export function promptRoom(model: ScenarioModel, version: HostVersion): number {
  const clamp = model.contextWindow - model.maxTokens;
  const [, month] = version.split(".").map(Number);
  if ((month ?? 0) < 8) return clamp;
  const reserve = Math.min(20_000, Math.floor(model.contextWindow / 4));
  const flushAt = model.contextWindow - reserve - Math.min(4_000, Math.floor((model.contextWindow - reserve) / 2));
  return Math.min(clamp, Math.floor(flushAt * 1.25));
}

function isPureExtension(previous: unknown[], next: unknown[]): boolean {
  if (next.length < previous.length) return false;
  return previous.every((m, i) => JSON.stringify(m) === JSON.stringify(next[i]));
}

/**
 * A request's messages without the host's own per-request trailer (9.6 appends an internal-context user message last,
 * and moves it on the next request).
 */
function withoutHostTrailer(messages: unknown[]): unknown[] {
  return messages.length > 0 && isInternalContextMessage(messages.at(-1)) ? messages.slice(0, -1) : messages;
}

/**
 * The main requests' figures (each turn's first request, the one the engine's view
 * shaped; later ones are the host appending the turn's tool calls): how many are a pure
 * extension of the previous turn's (system prompt, with the summary block, included;
 * the host's trailer left out), and the share of the prompt room each fills by the
 * host's own estimate once history no longer fits. The room is what the host line
 * leaves a prompt of `model` ({@link promptRoom}).
 */
export function mainRequestFigures(
  requests: readonly MockRequest[],
  firstUserText: string,
  model: ScenarioModel,
  version: HostVersion,
) {
  const mains = requests.filter((r) => r.indexInTurn === 0);
  const room = promptRoom(model, version);
  let extending = 0;
  for (let i = 1; i < mains.length; i++)
    if (isPureExtension(withoutHostTrailer(mains[i - 1]!.messages), withoutHostTrailer(mains[i]!.messages)))
      extending++;
  // History exceeds what the engine keeps once the conversation's first user message left the prompt's history (the
  // system prompt and the summary block, which quotes every user message, are left out).
  const trimmed = mains.filter(
    (r) =>
      !JSON.stringify(
        r.messages.filter(
          (m) => (m as { role?: unknown }).role !== "system" && !textOfMessage(m).includes(SUMMARY_OPEN),
        ),
      ).includes(firstUserText),
  );
  const fills = trimmed.map((r) => Math.round((hostTransportEstimate(r) / room) * 1000) / 1000);
  // Main requests that no longer show their own turn's message or one of the two turns before it.
  const missingNewestTurns = mains
    .filter((r) => {
      const n = Number(/Turn (\d+):/.exec(r.userText)?.[1] ?? 0);
      const shown = JSON.stringify(r.messages.filter((m) => (m as { role?: unknown }).role !== "system"));
      for (let k = Math.max(1, n - 2); k <= n; k++) if (!shown.includes(turnMessage(k))) return true;
      return false;
    })
    .map((r) => r.turn);
  return {
    compared: Math.max(0, mains.length - 1),
    extending,
    share: mains.length > 1 ? Math.round((extending / (mains.length - 1)) * 1000) / 1000 : 1,
    trimmedRequests: trimmed.length,
    worstFill: fills.length ? Math.min(...fills) : null,
    fills,
    /** Turns whose main request lost one of the newest 3 turns (the engine keeps them at any window). */
    missingNewestTurns,
  };
}

/**
 * Runs a long session (`workload`, {@link LONG_SESSION} by default) in `session` at the session's model shape
 * and records its figures under `name`; returns them, and each turn's answer as the model wrote it, for the
 * scenario's assertions.
 */
export async function measureLongSession(
  session: ScenarioSession,
  name: string,
  workload: LongSessionWorkload = LONG_SESSION,
) {
  await grantCliScopes(session.env);
  session.setScript(execTurnScript({ outputChars: workload.outputChars, answerChars: workload.answerChars }));
  // Each turn's final answer as the model wrote it ("" when it wrote none): what the history must show, once each.
  const answers: string[] = [];
  const model = session.model;
  const counter = await loadTokenCounter();
  const perTurn: {
    turn: number;
    answered: boolean;
    shown: string;
    requests: number;
    seen: string;
    historyCatchUpMs: number;
    ms: number;
  }[] = [];
  for (let n = 1; n <= workload.turns; n++) {
    const seen = await sendTurnAsSeen(session, turnMessage(n));
    answers.push(seen.modelAnswer ?? "");
    perTurn.push({
      turn: n,
      answered: seen.answered,
      shown: seen.shown.slice(0, 80),
      requests: seen.requests.length,
      seen: describeSeenTurn(seen),
      historyCatchUpMs: seen.historyCatchUpMs ?? 0,
      ms: seen.result.ms,
    });
  }
  // The user's turns only: a run the host starts on its own in the session (2026.9.6's pre-compaction memory
  // flush, some runs before turn 20) is not a request of a turn, and its prompt is the host's, not the view.
  const sent = perTurn.map((t) => turnMessage(t.turn));
  const ofTurns = session.requests().filter((r) => r.toolNames.length > 0);
  const all = ofTurns.filter((r) => sent.some((m) => r.userText.includes(m)));
  const perRequest = all.map((r, i) => {
    const hostEstimate = hostTransportEstimate(r);
    return {
      turn: r.turn,
      indexInTurn: r.indexInTurn,
      outputAllowance: outputAllowance(r) ?? null,
      hostEstimate,
      messageTokens: countMessageTokens(r.messages, counter),
      budgetUse: Math.round((hostEstimate / model.contextWindow) * 1000) / 1000,
      extendsPrevious: i > 0 ? isPureExtension(all[i - 1]?.messages ?? [], r.messages) : null,
      ...(r.usage ? { providerTokens: r.usage.promptTokens, cachedTokens: r.usage.cachedTokens } : {}),
    };
  });
  const firstOfTurn = perRequest.filter((r, i) => i > 0 && r.indexInTurn === 0);
  const allowances = perRequest.map((r) => r.outputAllowance).filter((v): v is number => v !== null);
  const figures = {
    model,
    answered: perTurn.filter((t) => t.answered).length,
    turns: perTurn.length,
    // Turns whose answer the client's history showed only on a later read (the model had answered; see
    // HISTORY_CATCH_UP_MS).
    historyCatchUps: perTurn.filter((t) => t.historyCatchUpMs > 0).length,
    minOutputAllowance: allowances.length > 0 ? Math.min(...allowances) : null,
    requestsBelowMaxTokens: allowances.filter((v) => v < model.maxTokens).length,
    maxHostEstimate: Math.max(...perRequest.map((r) => r.hostEstimate)),
    maxMessageTokens: Math.max(...perRequest.map((r) => r.messageTokens)),
    cacheStability: {
      pureExtensions: perRequest.filter((r) => r.extendsPrevious === true).length,
      comparedRequests: perRequest.length - 1,
      turnStartsExtendingPreviousTurn: firstOfTurn.filter((r) => r.extendsPrevious === true).length,
      turnStarts: firstOfTurn.length,
    },
    mainRequests: mainRequestFigures(all, turnMessage(1), model, session.version),
    hostRunRequests: ofTurns.length - all.length,
    // As a strict provider saw the turns' requests (when the mock is strict): refused, real BPE tokens, cached.
    provider: providerFigures(all, counter),
    transcript: await transcriptSize(session),
    requestOverhead: requestOverhead(all[0]),
    wallMs: perTurn.reduce((s, t) => s + t.ms, 0),
    perTurn,
    perRequest,
  };
  await recordFigures(name, session, figures);
  return { ...figures, answers };
}

/**
 * The session's requests as a strict OpenAI endpoint bills them: the mock's own usage when it was strict, else
 * the requests replayed in order through the same rules (real BPE counts, prefix cache; nothing refused).
 */
function providerFigures(requests: readonly MockRequest[], counter: TokenCounter) {
  const replay = requests.some((r) => r.usage)
    ? undefined
    : createOpenAIRules({ contextWindow: Infinity, enforce: false, counter });
  const usage = requests.flatMap((r) => {
    if (r.usage) return [r.usage];
    const verdict = replay?.check(r.body);
    return verdict?.ok ? [{ promptTokens: verdict.promptTokens, cachedTokens: verdict.cachedTokens }] : [];
  });
  const promptTokens = usage.reduce((sum, u) => sum + u.promptTokens, 0);
  const cachedTokens = usage.reduce((sum, u) => sum + u.cachedTokens, 0);
  return {
    ceiling: cacheCeiling(requests, counter),
    rejected: requests.filter((r) => r.rejected !== undefined).map((r) => `turn ${r.turn}: ${String(r.rejected)}`),
    // Requests the provider would have refused, answered for a control engine (strict "observe").
    violations: requests.filter((r) => r.violation !== undefined).map((r) => `turn ${r.turn}: ${String(r.violation)}`),
    promptTokens,
    cachedTokens,
    cachedShare: promptTokens > 0 ? Math.round((cachedTokens / promptTokens) * 1000) / 1000 : null,
    inputCostUsd: Math.round(inputCost(promptTokens, cachedTokens) * 10_000) / 10_000,
  };
}

/**
 * The most of these requests' prompt tokens any engine could read from a prefix cache: the share of units (the tool
 * list, each message, as the strict mock splits a request) that an earlier request of the session already sent,
 * wherever it sent them. What is left is new content: each turn's question, the model's calls and answers, the host's
 * own copy of a tool output in its in-turn request, and a summary that changed.
 */
export function cacheCeiling(requests: readonly MockRequest[], counter: TokenCounter): number | null {
  const seen = new Set<string>();
  let prompt = 0;
  let cacheable = 0;
  for (const r of requests) {
    const { messages, tools } = r.body as { messages?: unknown; tools?: unknown };
    const units = [
      { text: JSON.stringify(tools ?? []), tokens: counter(JSON.stringify(tools ?? [])) },
      ...(Array.isArray(messages) ? messages : []).map((m) => ({
        text: JSON.stringify(m),
        tokens: counter(messageText(m)) + MESSAGE_FRAMING_TOKENS,
      })),
    ];
    for (const u of units) {
      prompt += u.tokens;
      if (seen.has(u.text)) cacheable += u.tokens;
      seen.add(u.text);
    }
  }
  return prompt > 0 ? Math.round((cacheable / prompt) * 1000) / 1000 : null;
}

/** What {@link measureLongSession} records. */
export type LongSessionFigures = Awaited<ReturnType<typeof measureLongSession>>;

/** Every turn's shown answer is the model's (no host notice), and no request asked for less than maxTokens. */
export function expectEveryTurnAnsweredInFull(figures: LongSessionFigures): void {
  expect(figures.perTurn.map((t) => (t.answered ? "model" : `shown "${t.shown}" (${t.seen})`))).toEqual(
    figures.perTurn.map(() => "model"),
  );
  expect(figures.requestsBelowMaxTokens).toBe(0);
}

/**
 * The host started no run of its own in the session (2026.8.x onwards: its pre-compaction memory flush; legacy's 32k
 * session had 17-22 such requests).
 */
export function expectNoHostRuns(figures: LongSessionFigures): void {
  expect(figures.hostRunRequests, "requests of host-started runs (memory flush) in the session").toBe(0);
}

/**
 * A context-ledger long session on 2026.9.6 with the given model shape and plugin settings (on an agent of its
 * own on the line's context-ledger gateway), measured by `measure` ({@link LONG_SESSION} by default): every turn
 * answered in full, no host-started run (unless `hostRuns: "logged"`), then the scenario's own figures (`check`).
 */
export function ledgerLongSession(
  spec: Pick<HostScenario, "name" | "model" | "ledgerConfig" | "figure">,
  check: (figures: LongSessionFigures) => void,
  measure: (session: ScenarioSession, name: string) => Promise<LongSessionFigures> = measureLongSession,
  hostRuns: "none" | "logged" = "none",
): HostScenario {
  return {
    ...spec,
    lines: ["2026.9.6"],
    engines: ["context-ledger"],
    async run(session) {
      const figures = await measure(session, spec.name);
      expectEveryTurnAnsweredInFull(figures);
      if (hostRuns === "none") expectNoHostRuns(figures);
      else console.log(`[${spec.name}] requests of host-started runs: ${figures.hostRunRequests}`);
      check(figures);
    },
  };
}

/**
 * What an operator reads after the session, as they run it (`context-ledger status --json`, `view --json`):
 * the last turn's main prompt (its budget at a 32k window is about 31,900), not the host's in-turn assembles (budgets
 * down to 1, raised to the 512 floor), which are labelled as such.
 */
async function expectTurnFiguresInCli(session: ScenarioSession): Promise<void> {
  const cli = async (args: string[]) => {
    const res = await runLedgerCli(session.env, [...args, "--session", session.sessionKey, "--json"], {
      timeoutMs: 180_000,
    });
    expect(res.code, res.stderr.slice(-1000)).toBe(0);
    return extractJson(res.stdout);
  };
  const status = (await cli(["status"])) as StatusReport;
  const row = status.agents.flatMap((a) => a.sessions).find((x) => x.sessionKey === session.sessionKey);
  const view = ((await cli(["view"])) as { view: ViewRecord }).view;
  console.log(
    `[long-session] status: budget ${row?.promptBudget} assembled ${row?.assembledTokens} raw ${row?.rawHistoryTokens} debt ${row?.debtTokens} (${row?.debtTrend.verdict}) in-turn ${JSON.stringify(row?.hostInTurnAssembles)}; view: turn ${view.turn} budget ${view.budget.tokens} prompt ${view.estimatedTokens} kept ${view.plan.kept}/${view.plan.total}`,
  );
  expect(row?.promptBudget).toBeGreaterThanOrEqual(20_000);
  expect(row?.assembledTokens).toBeGreaterThan(512);
  expect(view.budget.tokens).toBeGreaterThanOrEqual(20_000);
  expect(view.debt.promptBudget).toBe(view.budget.tokens);
}

export const longSessionScenario: HostScenario = {
  name: "long-session",
  lines: ["2026.9.6"],
  engines: ["context-ledger", "legacy"],
  async run(session) {
    const figures = await measureLongSession(session, "long-session");
    if (session.engineId !== "context-ledger") return;
    expectEveryTurnAnsweredInFull(figures);
    expectNoHostRuns(figures);
    await expectTurnFiguresInCli(session);
    expect(await answerCountsInHistory(session, figures.answers), "each answer in chat.history").toEqual(
      figures.answers.map(() => 1),
    );
    // Below the host's memory-flush threshold (20,000 provider tokens at 32k) the room holds about 6 turns of this
    // session. A re-plan cuts as deep as the cost model says (budget.cachePriceRatio), never past the newest 3 turns,
    // so a window lasts about 4 turns (measured 2026-11-25: 15 of 19 main requests extend the previous one).
    expect(figures.mainRequests.trimmedRequests).toBeGreaterThan(0);
    expect(figures.mainRequests.missingNewestTurns).toEqual([]);
    expect(figures.mainRequests.extending).toBeGreaterThanOrEqual(13);
    const legacy = await readFigures("long-session", session.version, "legacy");
    expect(
      legacy,
      `legacy's run on ${session.version} recorded no figures (it runs first in the line file)`,
    ).toBeDefined();
    // As the provider bills it (o200k tokens, prefix cache, $1.25 / $0.125 per million), with the summary a message
    // (it no longer voids the cached system prompt at a re-plan): measured 2026-11-26 $0.256 against legacy's $0.662
    // (0.39x), 72% of prompt tokens read from the cache (legacy 60%); against the strict mock itself
    // (CONTEXT_LEDGER_STRICT_MOCK=1, legacy's host then runs differently) $0.247 vs $0.539 (0.46x), 71.8%. The
    // host's own copy of each turn's output in its in-turn request is 119k of the 158k uncached tokens, the same for
    // legacy: no engine reads more than about 79% from the cache here (docs/host-lines.md, prefix caching). Since the
    // summary quotes every user message the window leaves out (the prompt contract, docs/design.md), each re-plan
    // sends those quotes uncached once: measured 2026-11-28 $0.273, 69.6% from the cache; 2026-11-29, with the view
    // handed back to the in-loop calls kept whole when it fits (two turns had re-planned there), $0.262, 71.4%.
    const legacyCost = (legacy?.provider as { inputCostUsd: number }).inputCostUsd;
    expect(figures.provider.inputCostUsd).toBeLessThan(0.5 * legacyCost);
    expect(figures.provider.cachedShare).toBeGreaterThanOrEqual(0.705);
    // maintain() pays each tool result down in the host's own transcript (measured 2026-11-23: 154 KB active vs
    // legacy's 532 KB).
    const legacyTranscript = legacy?.transcript as TranscriptSize;
    expect(figures.transcript.activeBytes).toBeLessThan((legacyTranscript.activeBytes ?? 0) / 2);
  },
};
