/**
 * One engine's half of the demo: a mock model, an isolated host state and one gateway,
 * driven turn by turn the way the host scenarios send a turn (`sendTurnAsSeen`: the run,
 * then the engine's post-turn work); each turn is judged by the session's `chat.history`
 * read after that work (`judgeTurn`), measured from outside the host (requests as the
 * model received them, the host's log and stored transcript, context-ledger's artifact
 * store) and reported as soon as it completes.
 */
import { startGateway } from "../test/host/gateway.js";
import { createHostEnv, type EngineChoice, type HostEnv } from "../test/host/host-env.js";
import { NODE_BINARY, type HostVersion } from "../test/host/host-install.js";
import {
  countHostLogSignals,
  readHostLog,
  readPluginEvents,
  type HostLogSignals,
  type PluginEvent,
} from "../test/host/logs.js";
import { startMockModel, type MockModel, type MockReply, type MockRequest } from "../test/host/mock-model.js";
import { execTurnScript, SILENT_REPLY } from "../test/host/mock-scripts.js";
import { type TokenCounter } from "../test/host/token-count.js";
import { isFinalAnswerRequest, sendTurnAsSeen, type SeenTurnSession } from "../test/host/turn-as-seen.js";
import type { DemoOptions } from "./demo-cli.js";
import { createOpenAIRules } from "../test/host/openai-rules.js";
import { costTotals, memoCounter, requestCost, type CostTotals, type RequestCost } from "./demo-cost.js";
import { assistantTextsAfterUser, readFullHistory } from "./demo-history.js";
import { judgeTurn } from "./demo-judge.js";
import type { DemoRow } from "./demo-report.js";
import { measureArtifacts, measureTranscript } from "./demo-transcript.js";
import { readPrompts, type PromptReading } from "./demo-prompt.js";
import type { SentUserMessage } from "../test/host/prompt-contract.js";

/** The session the demo drives. */
export const DEMO_SESSION = "agent:main:main";

/** Everything one engine's run produced. */
export interface EngineRun {
  engine: string;
  rows: DemoRow[];
  cost: CostTotals;
  gatewayStartMs: number;
  /** The budget of the last turn's main prompt as context-ledger read it from the host, when known. */
  promptBudget: number | null;
  /** What the model read: the prompt contract over the conversation's requests, the summary last read. */
  prompt: PromptReading | null;
}

/** What {@link runEngine} needs from the caller. */
export interface EngineRunContext {
  options: DemoOptions;
  engine: EngineChoice & string;
  /** Folder of the staged plugin (a copy of dist/ the host loads). */
  ledgerDir: string;
  counter: TokenCounter;
  /** Progress line for this engine (the caller prefixes time and engine). */
  say(line: string): void;
  /** What the engine is waiting on now (empty: nothing), for the progress ticker. */
  busy(what: string): void;
  /** Called once this engine's gateway answers (the caller may then start the other one). */
  gatewayUp(): void;
  /** Registers cleanup to run on Ctrl-C and at the end. */
  onCleanup(fn: () => Promise<void>): void;
  /** True once the user asked to stop. */
  stopping(): boolean;
}

const clip = (text: string, max = 80) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
/** Shown texts quoted in a failed turn's note (the rest are counted). */
const SHOWN_IN_NOTE = 3;
const signalDelta = (now: HostLogSignals, before: HostLogSignals, key: keyof HostLogSignals) => now[key] - before[key];

/** Runs `options.turns` turns of the reset-loop workload with one engine and measures each. */
export async function runEngine(ctx: EngineRunContext): Promise<EngineRun> {
  const { options, counter } = ctx;
  const label = ctx.engine;
  const replies = new Map<number, MockReply>();
  const base = execTurnScript({ outputChars: options.output, answerChars: options.answer, nodePath: NODE_BINARY });
  let mock: MockModel | undefined;
  if (!options.baseUrl) {
    mock = await startMockModel({
      script: (request) => {
        const reply = base(request);
        replies.set(request.index, reply);
        return reply;
      },
    });
    const m = mock;
    ctx.onCleanup(() => m.close());
  }
  const env: HostEnv = await createHostEnv({
    version: options.host as HostVersion,
    baseUrl: options.baseUrl ?? (mock as MockModel).baseUrl,
    modelId: options.model,
    contextWindow: options.window,
    maxTokens: options.maxTokens,
    engine: ctx.engine,
    ledgerDir: ctx.ledgerDir,
    ...(options.baseUrl
      ? {
          extraConfig: {
            models: { providers: { mock: { apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "none" } } },
          },
        }
      : {}),
  });
  ctx.onCleanup(() => env.cleanup());
  ctx.say(`starting the gateway (OpenClaw ${options.host}) ...`);
  ctx.busy("gateway start");
  const gateway = await startGateway(env).finally(() => ctx.gatewayUp());
  ctx.onCleanup(() => gateway.stop());
  ctx.say(`gateway up in ${(gateway.startMs / 1000).toFixed(1)} s`);

  // The engine's requests replayed in order through a strict provider's rules: BPE counts, prefix cache.
  const provider = createOpenAIRules({
    contextWindow: Number.POSITIVE_INFINITY,
    enforce: false,
    counter: memoCounter((text) => counter(String(text))),
  });
  const replyTokens = (reply: MockReply | undefined): number => {
    if (!reply) return 8;
    const calls = "toolCalls" in reply ? JSON.stringify(reply.toolCalls) : "";
    return counter(`${reply.text ?? ""}${calls}`);
  };
  const costs: RequestCost[] = [];
  let signalsBefore = countHostLogSignals("");
  let eventsSeen = 0;
  let promptBudget: number | null = null;
  const rows: DemoRow[] = [];
  const asked: SentUserMessage[] = [];
  let counted = 0;
  const session: SeenTurnSession = {
    engineId: env.engineId,
    sessionKey: DEMO_SESSION,
    requests: () => mock?.requests ?? [],
    chatSend: (message) => gateway.chatSend(DEMO_SESSION, message),
    call: (method, params, timeoutMs) => gateway.call(method, params, timeoutMs),
    pluginEvents: () => readPluginEvents(env).catch(() => []),
  };

  for (let turn = 1; turn <= options.turns && !ctx.stopping(); turn++) {
    ctx.busy(`turn ${turn}`);
    const message = `Turn ${turn}: run the nightly report command again and summarize what changed.`;
    asked.push({ text: message, requestsBefore: mock?.requests.length ?? 0 });
    // Measured after the engine's post-turn work, so the next message is a turn of its own, not a queued follow-up.
    const seen = await sendTurnAsSeen(session, message);
    const sent = seen.result;
    // Every request since the last turn settled, the host's post-turn ones included (none is left to the next turn).
    const requests = mock ? mock.requests.slice(counted) : [];
    counted = mock?.requests.length ?? 0;
    const turnCosts = requests.map((r) => requestCost(r, provider, replyTokens(replies.get(r.index))));
    const allowances = turnCosts.map((c) => c.allowance).filter((a): a is number => a !== null);
    const clamped = allowances.filter((a) => a < options.maxTokens);
    // What the user sees on reopening the chat: the history read after the post-turn work (sendTurnAsSeen waited
    // for it), never an answer read back from a stub's handle.
    const shown = await readFullHistory(session.call, DEMO_SESSION)
      .then((history) => ({ texts: assistantTextsAfterUser(history, message), error: undefined }))
      .catch((error: unknown) => ({
        texts: [] as string[],
        error: error instanceof Error ? error.message : String(error),
      }));
    const judged = judgeTurn({
      shown: shown.texts,
      written: mock ? writtenAnswers(requests, replies) : null,
      waitStatus: String(sent.wait.status ?? "unknown"),
      clamped: clamped.length,
    });
    const { status } = judged;
    costs.push(...turnCosts);
    const signals = countHostLogSignals(await readHostLog(env));
    const events = await readPluginEvents(env).catch(() => []);
    const fresh = events.slice(eventsSeen);
    eventsSeen = events.length;
    promptBudget = turnPromptBudget(fresh) ?? promptBudget;
    const transcript = await measureTranscript(env.stateDir, DEMO_SESSION, counter);
    const artifacts = await measureArtifacts(env.stateDir);

    const resets = Math.max(
      signalDelta(signals, signalsBefore, "sessionRestarted"),
      signalDelta(signals, signalsBefore, "resetReply"),
    );
    const overflow = signalDelta(signals, signalsBefore, "overflowDetected");
    const failed = signalDelta(signals, signalsBefore, "compactionFailed");
    const hostCompacted = signalDelta(signals, signalsBefore, "compactionSucceeded");
    const ledgerCompacted = fresh.filter(
      (e) => (e.op === "compact" && e.compacted === true) || (e.op === "paydown" && e.changed === true),
    ).length;
    // Compaction entries context-ledger wrote into the host's transcript: the "Compaction" lines the history shows.
    const engineEntries = fresh.filter(
      (e) => (e.op === "compact:sealed" || e.op === "compact:recorded") && typeof e.hostEntry === "string",
    ).length;
    const summaryRequests = turnCosts.filter((c) => c.noTools).length;
    if (process.env.CONTEXT_LEDGER_DEMO_DEBUG === "1") {
      for (const r of requests.filter((q) => q.toolNames.length === 0))
        ctx.say(`turn ${turn}: request without tools, last message: ${JSON.stringify(r.lastMessage).slice(0, 300)}`);
    }
    signalsBefore = signals;

    const notes: string[] = [];
    const quoted = shown.texts
      .slice(0, SHOWN_IN_NOTE)
      .map((t) => `"${clip(t)}" (${t.length.toLocaleString("en-US")} chars)`);
    const more = shown.texts.length - quoted.length;
    if (shown.error) notes.push(`chat.history could not be read: ${clip(shown.error)}`);
    else if (!judged.answered && judged.status !== "cut off")
      notes.push(
        quoted.length > 0
          ? `chat.history showed: ${quoted.join(", ")}${more > 0 ? ` and ${more} more assistant texts` : ""}`
          : "chat.history showed no reply",
      );
    if (resets > 0)
      notes.push(
        `session reset ×${resets}${requests.length === 0 ? " (no model call: the reply was the host's reset notice)" : ""}`,
      );
    if (overflow > 0) notes.push(`${overflow} overflow retr${overflow === 1 ? "y" : "ies"}`);
    if (failed > 0) notes.push("host compaction failed");
    if (hostCompacted > 0) notes.push(`host compacted ×${hostCompacted}`);
    // Requests without tools are the host asking for a compaction summary ("a structured context checkpoint summary" on
    // 2026.4.24).
    if (summaryRequests > 0)
      notes.push(`${summaryRequests} compaction summary request${summaryRequests === 1 ? "" : "s"}`);
    if (ledgerCompacted > 0) notes.push(`transcript paid down ×${ledgerCompacted}`);
    if (engineEntries > 0) notes.push(`compaction entr${engineEntries === 1 ? "y" : "ies"} written ×${engineEntries}`);
    if (clamped.length > 0)
      notes.push(
        `${clamped.length} request${clamped.length === 1 ? "" : "s"} clamped (min ${Math.min(...clamped).toLocaleString("en-US")} of ${options.maxTokens.toLocaleString("en-US")} output tokens)`,
      );
    if (judged.status === "cut off" && mock) {
      const least = Math.min(...clamped);
      notes.push(
        `the mock ignores the allowance and its answer was shown whole; a real model's would stop at ${least.toLocaleString("en-US")} output token${least === 1 ? "" : "s"}`,
      );
    }
    const row: DemoRow = {
      engine: label,
      turn,
      status,
      promptTokens: turnCosts.length ? Math.max(...turnCosts.map((c) => c.promptTokens)) : 0,
      requests: requests.length,
      clamped: clamped.length,
      rawBytes: transcript.bytes,
      rawTokens: transcript.store === "none" ? null : transcript.tokens,
      debtTokens: null,
      artifacts: artifacts.count,
      resets,
      // Compaction work the user's history shows: the host's own, and the compaction entries context-ledger wrote
      // (its tool-output paydown is maintenance, listed in notes).
      compactions: overflow + hostCompacted + engineEntries + (overflow + hostCompacted === 0 ? summaryRequests : 0),
      notes,
      ms: Math.round(sent.ms),
    };
    rows.push(row);
    ctx.say(
      `turn ${turn}/${options.turns}: ${row.status}, largest prompt ${row.promptTokens.toLocaleString("en-US")} tokens in ${row.requests} request${row.requests === 1 ? "" : "s"}, ` +
        `transcript ${Math.round(row.rawBytes / 1024).toLocaleString("en-US")} KB, ${(row.ms / 1000).toFixed(1)} s${notes.length ? ` — ${notes.join(", ")}` : ""}`,
    );
  }
  return {
    engine: label,
    rows,
    cost: costTotals(costs, options.prices),
    gatewayStartMs: gateway.startMs,
    promptBudget,
    prompt: mock ? readPrompts(mock.requests, asked) : null,
  };
}

/**
 * The final answers the mock wrote in `requests`: replies to requests that offered tools and carried the
 * turn's tool result, without the silent reply (the host's memory flush) or a tool call.
 */
export function writtenAnswers(requests: readonly MockRequest[], replies: ReadonlyMap<number, MockReply>): string[] {
  const out: string[] = [];
  for (const request of requests) {
    const reply = replies.get(request.index);
    if (!reply || request.toolNames.length === 0 || !isFinalAnswerRequest(request)) continue;
    if ("toolCalls" in reply && reply.toolCalls.length > 0) continue;
    if (typeof reply.text === "string" && reply.text !== SILENT_REPLY) out.push(reply.text);
  }
  return out;
}

/**
 * The budget of a turn's main prompt: the largest budget among the turn's assembles. 2026.9.x also
 * assembles inside the turn with small budgets (512, or 1 after a tool call); the last assemble's
 * budget is one of those, not the prompt the turn was built for.
 */
export function turnPromptBudget(events: readonly PluginEvent[]): number | null {
  let best: number | null = null;
  for (const e of events) {
    const budget = e.op === "assemble" ? (e.debt as { promptBudget?: unknown } | undefined)?.promptBudget : undefined;
    if (typeof budget === "number" && (best === null || budget > best)) best = budget;
  }
  return best;
}

/** Fills each row's debt: raw transcript tokens over the prompt budget (the same rule for every engine). */
export function fillDebt(runs: readonly EngineRun[], budget: number): void {
  for (const run of runs)
    for (const row of run.rows) row.debtTokens = row.rawTokens === null ? null : Math.max(0, row.rawTokens - budget);
}
