/**
 * Benchmark 9, the long haul: one session of many turns (500 by default) through a real gateway, per host line and
 * engine side by side, offline against the mock model. Tool outputs come from real programs on the machine (this
 * repository's `git log -p`, its `package-lock.json` and plugin manifest with its whole config schema, `ls -laR`,
 * `node --help`, an HTML page under node_modules) and from a seeded log generator, 200 chars to 1 MB, some repeated
 * verbatim. Facts planted early (in user turns and in the middle of big outputs) are asked about late. The scripted
 * model remembers nothing across requests: it answers a recall question only from what its request holds, or after a
 * `ledger_search` / `ledger_fetch` call its request offers (legacy gets the same model, without those tools).
 * The gateway restarts halfway and a manual `/compact` is sent at 60% of the run.
 * Not part of `npm test`: `npm run bench -- --only long-haul` (`--quick`: 100 turns).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { startGateway, type Gateway } from "../test/host/gateway.js";
import { createHostEnv, type HostEnv } from "../test/host/host-env.js";
import type { HostVersion } from "../test/host/host-install.js";
import { readPluginEvents, type PluginEvent } from "../test/host/logs.js";
import { liveHeap, sampleLiveAllocations, type HeapAttribution, type LiveHeap } from "./lib/live-heap.js";
import { startMockModel, type MockReply, type MockRequest } from "../test/host/mock-model.js";
import {
  hasToolResultInCurrentTurn,
  printCharsCommand,
  SILENT_REPLY,
  toolResultsInCurrentTurn,
} from "../test/host/mock-scripts.js";
import { stopAllGroups } from "../test/host/processes.js";
import { outputAllowance, transcriptSize } from "../test/host/scenarios/turn-figures.js";
import {
  describeSeenTurn,
  isHostNotice,
  seenStatus,
  sendTurnAsSeen,
  type SeenTurn,
  type SeenTurnSession,
} from "../test/host/turn-as-seen.js";
import { callTool, commandOf, findHtml, groupRssMb, offers, pluginBytes } from "./lib/gateway-run.js";
import { check, percentile, round } from "./lib/stats.mjs";

const SESSION_KEY = "agent:main:long-haul";
const MODEL = { contextWindow: 32_000, maxTokens: 4_096 } as const;
const MB = 1_048_576;

/** Options of {@link runLongHaulBench}. */
export interface LongHaulOptions {
  turns?: number;
  versions?: HostVersion[];
  engines?: ("context-ledger" | "legacy")[];
  /** Exactly these runs, in this order (instead of every version with every engine). */
  runs?: { version: HostVersion; engine: "context-ledger" | "legacy" }[];
  log?: (line: string) => void;
}

/** A fact planted at `turn` (in the user's message or in the middle of that turn's tool output), asked at `askAt`. */
interface Fact {
  id: string;
  value: string;
  turn: number;
  where: "user" | "output";
  askAt: number;
}

/** Facts at turns 5, 20, 50, 80, 120, 150, 200 and 240 of 500 (scaled), asked between turns 300 and 490. */
function plantFacts(turns: number): Fact[] {
  const at = [5, 20, 50, 80, 120, 150, 200, 240];
  const words = ["amber", "copper", "violet", "granite", "saffron", "cobalt", "juniper", "ochre"];
  return at.map((t, i) => ({
    id: `FACT-${i + 1}`,
    value: `${words[i]}-${1000 + ((i * 7919) % 9000)}`,
    turn: Math.max(1, Math.round((t / 500) * turns)),
    where: i % 2 === 0 ? "user" : "output",
    askAt: Math.round(((300 + i * 25) / 500) * turns),
  }));
}

/** The user's message of turn `n`. */
function messageOf(n: number, facts: readonly Fact[]): string {
  const ask = facts.find((f) => f.askAt === n);
  if (ask) return `Turn ${n}: what was ${ask.id}? Answer from the session's history.`;
  const planted = facts.find((f) => f.turn === n && f.where === "user");
  return `Turn ${n}: run the next check and tell me what changed.${planted ? ` Remember ${planted.id}=${planted.value} for later.` : ""}`;
}

const turnOf = (request: MockRequest): number => Number(/Turn (\d+):/.exec(request.userText)?.[1] ?? 0);

/** The scripted model (see the module comment). */
function longHaulScript(facts: readonly Fact[], html: string | undefined) {
  return (request: MockRequest): MockReply => {
    if (request.toolNames.length === 0)
      return { text: `Summary of the conversation so far (request ${request.index}).` };
    if (!request.toolNames.includes("exec")) return { text: SILENT_REPLY };
    const n = turnOf(request);
    const ask = /what was (FACT-\d+)\?/.exec(request.userText)?.[1];
    const inTurn = hasToolResultInCurrentTurn(request.messages);
    if (!ask) {
      if (!inTurn) {
        // A planted fact sits in the middle of 80,000 chars: over the offload threshold, under exec's 200,000 cut.
        const planted = facts.find((f) => f.turn === n && f.where === "output");
        const half = printCharsCommand(40_000);
        const command = planted ? `${half}; echo ${planted.id}=${planted.value}; ${half}` : commandOf(n, html);
        return { toolCalls: [{ name: "exec", args: { command } }] };
      }
      return { text: `Answer ${n}: the check ran; ${"nothing unexpected in the output. ".repeat(8)}` };
    }
    const found = new RegExp(`${ask}=([a-z]+-\\d+)`).exec(JSON.stringify(request.messages))?.[1];
    const results = inTurn ? toolResultsInCurrentTurn(request.messages) : [];
    if (!found && results.length < 2) {
      if (results.length === 0 && offers(request, "ledger_search"))
        return callTool(request, "ledger_search", { query: ask });
      const handle = /ledger:v1:sha256:[0-9a-f]{64}/.exec(results.join("\n"))?.[0];
      if (results.length === 1 && handle && offers(request, "ledger_fetch"))
        return callTool(request, "ledger_fetch", { handle, selector: { grep: { pattern: ask } } });
    }
    if (!inTurn) return { toolCalls: [{ name: "exec", args: { command: `echo recalling ${ask}` } }] };
    return { text: found ? `Answer ${n}: ${ask}=${found}` : `Answer ${n}: ${ask} is not in what I can see.` };
  };
}

/** The gateway opens Node's inspector on a port of its own: the bench reads its heap after a full collection. */
const GATEWAY_OPTIONS = { nodeArgs: ["--inspect=127.0.0.1:0"] } as const;

/** One engine on one host line for `turns` turns. */
async function runOne(
  version: HostVersion,
  engine: "context-ledger" | "legacy",
  turns: number,
  log: (l: string) => void,
) {
  const facts = plantFacts(turns);
  const html = await findHtml();
  const mock = await startMockModel({
    script: longHaulScript(facts, html),
    // Loop breakers only: legacy compacts in many requests per turn (about 28 a turn at 32k on 2026.9.6).
    maxRequestsPerTurn: 40,
    maxRequestsTotal: turns * 60,
  });
  let env: HostEnv | undefined;
  let gateway: Gateway | undefined;
  try {
    env = await createHostEnv({ version, baseUrl: mock.baseUrl, modelId: mock.modelId, engine, ...MODEL });
    gateway = await startGateway(env, GATEWAY_OPTIONS);
    const hostEnv = env;
    let live: Gateway = gateway;
    const session: SeenTurnSession = {
      engineId: hostEnv.engineId,
      sessionKey: SESSION_KEY,
      requests: () => mock.requests,
      chatSend: (message) => live.chatSend(SESSION_KEY, message),
      call: (method, params, timeoutMs) => live.call(method, params, timeoutMs),
      pluginEvents: () => readPluginEvents(hostEnv),
    };
    const perTurn: Record<string, unknown>[] = [];
    const engineMs: number[] = [];
    const recall: { id: string; turn: number; hit: boolean; factInPrompt: boolean }[] = [];
    const notAnswered: number[] = [];
    /** Turns answered with the host's reset notice ("Context limit exceeded. I've reset our conversation"). */
    const resets: number[] = [];
    let eventsSeen = 0;
    const started = Date.now();
    // A diagnosis on demand: which code allocated what the gateway still holds, sampled from a turn to the restart
    // (or the end). CONTEXT_LEDGER_HEAP_SAMPLE_FROM=<turn>.
    const sampleFrom = Number(process.env.CONTEXT_LEDGER_HEAP_SAMPLE_FROM ?? 0);
    const sampleTo = sampleFrom <= Math.floor(turns / 2) ? Math.floor(turns / 2) : turns;
    let sampling: Awaited<ReturnType<typeof sampleLiveAllocations>>;
    let heapAttribution: (HeapAttribution & { fromTurn: number; toTurn: number }) | undefined;
    let gatewayDied: { beforeTurn: number; cause: string } | undefined;
    for (let n = 1; n <= turns; n++) {
      // A gateway that died (2026.4.24 ran out of heap parsing a transcript file of tens of MB) ends the run: the
      // turns it did not serve count as not answered.
      if (!live.running()) {
        gatewayDied = { beforeTurn: n, cause: await gatewayExitCause(live.outputPath) };
        for (let m = n; m <= turns; m++) notAnswered.push(m);
        log(`${version} ${engine}: the gateway died before turn ${n} (${gatewayDied.cause}); run ended`);
        break;
      }
      if (sampleFrom > 0 && n === sampleFrom + 1) sampling = await sampleLiveAllocations(live.pid, live.outputPath);
      if (sampling && n === sampleTo + 1) {
        heapAttribution = { ...(await sampling.stop()), fromTurn: sampleFrom, toTurn: sampleTo };
        sampling = undefined;
        log(
          `${version} ${engine}: live allocations by code, turns ${sampleFrom}-${sampleTo}: ${JSON.stringify(heapAttribution)}`,
        );
      }
      if (n === Math.floor(turns / 2) + 1) {
        await live.stop();
        gateway = live = await startGateway(hostEnv, GATEWAY_OPTIONS);
        log(`${version} ${engine}: gateway restarted before turn ${n}`);
      }
      if (n === Math.round(turns * 0.6)) await live.chatSend(SESSION_KEY, "/compact").catch(() => undefined);
      const seen = await sendTurnAsSeen(session, messageOf(n, facts));
      const events = engine === "legacy" ? [] : await readPluginEvents(hostEnv);
      const turnEvents = events.slice(eventsSeen);
      const ms = turnEvents
        .filter((e) => e.op === "assemble" && e.sessionKey === SESSION_KEY)
        .reduce((s, e) => s + Number(e.ms ?? 0), 0);
      eventsSeen = events.length;
      engineMs.push(ms);
      const main = seen.requests[0];
      const ask = facts.find((f) => f.askAt === n);
      if (ask && !seen.shown.includes(`${ask.id}=${ask.value}`)) {
        const last = seen.requests.at(-1)?.messages ?? [];
        log(
          `${version} ${engine} turn ${n}: ${ask.id} missed (${seen.shown.slice(0, 80)}); tools offered: ${seen.requests[0]?.toolNames.join(", ")}; the turn's tool results:`,
        );
        for (const t of toolResultsInCurrentTurn(last)) log(`  ${t.slice(0, 400)}`);
      }
      if (ask)
        recall.push({
          id: ask.id,
          turn: n,
          hit: seen.shown.includes(`${ask.id}=${ask.value}`),
          factInPrompt: JSON.stringify(main?.messages ?? []).includes(`${ask.id}=${ask.value}`),
        });
      if (
        seenStatus({ answered: seen.answered, texts: seen.texts, waitStatus: String(seen.result.wait.status) }) ===
        "reset notice"
      )
        resets.push(n);
      if (!seen.answered) {
        notAnswered.push(n);
        log(`${version} ${engine} turn ${n} not answered: ${seen.shown.slice(0, 120)}`);
        log(`  ${describeMiss(seen)}`);
        log(`  engine events: ${describeTurnEvents(turnEvents)}`);
      }
      if (n % 10 === 0 || n === 1 || n === turns) {
        const allowances = seen.requests.map(outputAllowance).filter((v): v is number => v !== undefined);
        const transcript = await transcriptSize({ env: hostEnv, sessionKey: SESSION_KEY });
        const plugin = await pluginBytes(path.join(hostEnv.stateDir, "context-ledger"));
        perTurn.push({
          turn: n,
          answered: seen.answered,
          requests: seen.requests.length,
          engineMs: round(ms),
          rssMb: groupRssMb(live.pid),
          // A forced full collection costs a pause of about a second: every 50 turns, and at turn 1 and the end.
          ...(n % 50 === 0 || n === 1 || n === turns
            ? { liveHeap: (await liveHeap(live.pid, live.outputPath)) ?? null }
            : {}),
          transcriptStore: transcript.store,
          transcriptBytes: transcript.bytes,
          activeBytes: transcript.activeBytes ?? null,
          pluginStateBytes: plugin.state,
          storeBytes: plugin.store,
          promptBytes: main?.messageBytes ?? 0,
          minAllowance: allowances.length ? Math.min(...allowances) : null,
        });
        log(`${version} ${engine} turn ${n}/${turns}: ${JSON.stringify(perTurn.at(-1))}`);
      }
    }
    if (sampling && live.running()) {
      heapAttribution = { ...(await sampling.stop()), fromTurn: sampleFrom, toTurn: turns };
      log(
        `${version} ${engine}: live allocations by code, turns ${sampleFrom}-${turns}: ${JSON.stringify(heapAttribution)}`,
      );
    }
    const at = (turn: number) => perTurn.find((r) => Number(r.turn) >= turn);
    const last = perTurn.at(-1) as Record<string, number>;
    const early = engineMs.slice(10, 30);
    const late = engineMs.slice(-20);
    return {
      version,
      engine,
      turns,
      answered: turns - notAnswered.length,
      notAnswered,
      resets,
      ...(gatewayDied ? { gatewayDied } : {}),
      wallSec: Math.round((Date.now() - started) / 1000),
      requestsBelowMaxTokens: mock.requests.filter((r) => (outputAllowance(r) ?? MODEL.maxTokens) < MODEL.maxTokens)
        .length,
      recall: {
        asked: recall.length,
        hit: recall.filter((r) => r.hit).length,
        hitWithoutFactInPrompt: recall.filter((r) => r.hit && !r.factInPrompt).length,
        detail: recall,
      },
      engineMs: { p50Turns11to30: round(percentile(early, 50)), p50Last20: round(percentile(late, 50)) },
      rssMb: { atTurn50: Number(at(Math.min(50, turns / 10))?.rssMb ?? 0), atEnd: Number(last.rssMb) },
      // What the gateway holds after a full collection, at turn 50 and at the end: retained memory, not lazy heap.
      liveHeap: {
        atTurn50: (at(Math.min(50, turns / 10))?.liveHeap ?? null) as LiveHeap | null,
        atEnd: (last.liveHeap ?? null) as unknown as LiveHeap | null,
      },
      transcript: { store: String(last.transcriptStore), bytes: last.transcriptBytes, activeBytes: last.activeBytes },
      pluginStateBytes: last.pluginStateBytes,
      storeBytes: last.storeBytes,
      perTurn,
      ...(heapAttribution ? { heapAttribution } : {}),
    };
  } finally {
    await gateway?.stop().catch(() => undefined);
    await stopAllGroups();
    await mock.close();
    // CONTEXT_LEDGER_KEEP_ENV=1 leaves the host's and the plugin's state for a look afterwards.
    if (process.env.CONTEXT_LEDGER_KEEP_ENV === "1" && env) log(`${version} ${engine}: state kept in ${env.root}`);
    else await env?.cleanup();
  }
}

/**
 * Why the judge said "not answered" when the history shows an answer: the run, how many texts the history showed for
 * the turn and how many of them are the model's answer byte for byte (2: shown twice), host notices, and each text's
 * length and head beside the answer's.
 */
function describeMiss(seen: SeenTurn): string {
  const answer = seen.modelAnswer;
  const texts = seen.texts.map((t) => `${t.length}:${JSON.stringify(t.slice(0, 40))}${t === answer ? "=" : ""}`);
  return [
    describeSeenTurn(seen),
    `history texts ${seen.texts.length}, equal to the answer ${seen.texts.filter((t) => t === answer).length}`,
    `host notices ${seen.texts.filter(isHostNotice).length}`,
    `answer ${answer === undefined ? "none recorded" : `${answer.length}:${JSON.stringify(answer.slice(0, 40))}`}`,
    `texts [${texts.join(", ")}]`,
  ].join("; ");
}

/**
 * The engine's events of a turn in order, each op with what tells a post-turn rewrite apart: a paydown's rewritten
 * entries, and maintain's host-load compaction and reclaim (a rewrite whose superseded branch stayed in the file shows
 * the turn's answer twice in 2026.4.24's history).
 */
function describeTurnEvents(events: readonly PluginEvent[]): string {
  const brief = (e: PluginEvent): string => {
    const pick = (v: unknown): string => (v === undefined ? "" : JSON.stringify(v).slice(0, 160));
    if (e.op === "paydown") return `paydown(${pick({ changed: e.changed, rewrittenEntries: e.rewrittenEntries })})`;
    if (e.op === "maintain")
      return `maintain(${pick({ changed: e.changed, hostLoad: e.hostLoad, reclaim: e.reclaim })})`;
    return String(e.op);
  };
  return events.map(brief).join(" ");
}

/** The last fatal line of the gateway's output (V8's "FATAL ERROR: ..."), else its last line. */
async function gatewayExitCause(outputPath: string): Promise<string> {
  const output = await fsp.readFile(outputPath, "utf8").catch(() => "");
  const lines = output.split("\n").filter((l) => l.trim());
  return (lines.findLast((l) => l.includes("FATAL ERROR")) ?? lines.at(-1) ?? "no output").slice(0, 200);
}

/** Runs the long haul on each line and engine; figures with the issue's targets. */
export async function runLongHaulBench(options: LongHaulOptions = {}) {
  const turns = options.turns ?? 500;
  const log = options.log ?? (() => {});
  const runs = [];
  const plan =
    options.runs ??
    (options.versions ?? (["2026.9.6", "2026.4.24"] as HostVersion[])).flatMap((version) =>
      (options.engines ?? (["context-ledger", "legacy"] as const)).map((engine) => ({ version, engine })),
    );
  for (const { version, engine } of plan) runs.push(await runOne(version, engine, turns, log));
  const targets: Record<string, unknown> = {};
  for (const r of runs.filter((x) => x.engine === "context-ledger")) {
    const k = r.version.replace(/\./g, "_");
    targets[`answered_${k}`] = check(r.answered, ">=", r.turns, "turns");
    targets[`resets_${k}`] = check(r.resets.length, "<=", 0, "resets");
    targets[`recall_${k}`] = check(Math.round((100 * r.recall.hit) / Math.max(1, r.recall.asked)), ">=", 90, "%");
    targets[`engineTime_${k}`] = check(
      round(r.engineMs.p50Last20 / Math.max(0.01, r.engineMs.p50Turns11to30)),
      "<=",
      1.5,
      "x",
    );
    targets[`rssGrowth_${k}`] = check(round(r.rssMb.atEnd - r.rssMb.atTurn50), "<=", 50, "MB");
    // The same bound on what the gateway retains: its heap right after a forced full collection.
    if (r.liveHeap.atTurn50 && r.liveHeap.atEnd)
      targets[`liveHeapGrowth_${k}`] = check(
        round(r.liveHeap.atEnd.heapUsedMb - r.liveHeap.atTurn50.heapUsedMb),
        "<=",
        50,
        "MB",
      );
    targets[`pluginState_${k}`] = check(round(Number(r.pluginStateBytes) / MB), "<=", 5, "MB");
    // Only the JSONL lines keep superseded branches in the file the host parses; SQLite lines are sized apart.
    if (r.transcript.store === "jsonl" && r.transcript.activeBytes)
      targets[`transcriptFile_${k}`] = check(
        round(Number(r.transcript.bytes) / Number(r.transcript.activeBytes)),
        "<=",
        3,
        "x active",
      );
  }
  return { turns, runs, targets };
}
