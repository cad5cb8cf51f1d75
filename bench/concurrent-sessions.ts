/**
 * Benchmark 10, sessions at once: one gateway on 2026.9.6 serves one session alone (the baseline), then ten sessions
 * of the same agent sent turns concurrently, as the channels of a team would (50 tool-heavy turns each by default).
 * Every `exec` output ends with a marker naming its session and turn, so the bench can tell:
 * - **answered**: every turn answered by the model, as the user's client shows it;
 * - **crossed**: any request of one session (its view) or any `ledger_search` answer that shows another session's
 *   marker; each session searches once for another session's marker and once for its own (the positive control);
 * - **lost captures**: a turn whose tool result, as the model saw it, neither holds the output's marker inline nor
 *   names a handle whose stored, verified bytes hold it;
 * - **per-turn figures**: engine time (assemble) and main prompt bytes per turn, p50, beside the session alone.
 * Not part of `npm test`: `npm run bench -- --only sessions` (`--quick`: 3 sessions of 20 turns).
 */
import path from "node:path";
import { createArtifactStore, type ArtifactStore } from "../src/artifacts/index.js";
import { parseHostCopy } from "../src/results/host-copy.js";
import { artifactRoot } from "../src/state/paths.js";
import { startGateway, type Gateway } from "../test/host/gateway.js";
import { createHostEnv, type HostEnv } from "../test/host/host-env.js";
import type { HostVersion } from "../test/host/host-install.js";
import { readPluginEvents, type PluginEvent } from "../test/host/logs.js";
import { startMockModel, type MockReply, type MockRequest } from "../test/host/mock-model.js";
import { hasToolResultInCurrentTurn, SILENT_REPLY, toolResultsInCurrentTurn } from "../test/host/mock-scripts.js";
import { stopAllGroups } from "../test/host/processes.js";
import { sendTurnAsSeen, type SeenTurnSession } from "../test/host/turn-as-seen.js";
import { callTool, commandOf, findHtml, groupRssMb, offers, pluginBytes } from "./lib/gateway-run.js";
import { check, percentile, round } from "./lib/stats.mjs";

const MODEL = { contextWindow: 32_000, maxTokens: 4_096 } as const;
const HANDLE = /ledger:v1:sha256:[0-9a-f]{64}/;
const MARK = /MARK-S(\d+)-T(\d+)/g;
/** The host's tool result for an `exec` it sent to the background (2026.9.6). */
const BACKGROUNDED = /^Command still running \(session /m;

/** Options of {@link runConcurrentSessionsBench}. */
export interface ConcurrentSessionsOptions {
  sessions?: number;
  turns?: number;
  version?: HostVersion;
  log?: (line: string) => void;
}

const marker = (session: number, turn: number): string => `MARK-S${session}-T${turn}`;
const sessionKeyOf = (session: number): string => `agent:main:team-${session}`;
const messageOf = (session: number, turn: number): string =>
  `S${session} Turn ${turn}: run the next check and tell me what changed.`;
const partitionOf = (userText: string | undefined): string => /\bS(\d+) Turn \d+:/.exec(userText ?? "")?.[1] ?? "";
const turnOf = (request: MockRequest): number => Number(/ Turn (\d+):/.exec(request.userText)?.[1] ?? 0);

/** Sessions named by the markers in `text`, other than `own`. */
function otherSessionsIn(text: string, own: number): number[] {
  return [...text.matchAll(MARK)].map((m) => Number(m[1])).filter((s) => s !== own);
}

/**
 * The scripted model: each turn one `exec` (a real program's output, then the turn's marker) and an answer; at
 * `probes.other` a `ledger_search` for the next session's marker, at `probes.own` one for its own.
 */
function teamScript(probes: { other: number; own: number }, sessions: number, html: string | undefined) {
  return (request: MockRequest): MockReply => {
    if (request.toolNames.length === 0)
      return { text: `Summary of the conversation so far (request ${request.index}).` };
    // Runs the host starts itself (memory flush, and the "[OpenClaw exec completion]" turn after an exec that went to
    // the background under load) carry no bench turn: answered silently, never as another session's turn.
    if (!request.toolNames.includes("exec") || request.partition === "") return { text: SILENT_REPLY };
    const s = Number(request.partition);
    const n = turnOf(request);
    const inTurn = hasToolResultInCurrentTurn(request.messages);
    if (inTurn) return { text: `Answer ${n}: the check ran; ${"nothing unexpected in the output. ".repeat(4)}` };
    if ((n === probes.other || n === probes.own) && offers(request, "ledger_search")) {
      const target = n === probes.other ? (s + 1) % sessions : s;
      return callTool(request, "ledger_search", { query: `MARK-S${target}-T`, maxResults: 20 });
    }
    return { toolCalls: [{ name: "exec", args: { command: `${commandOf(n, html)}; echo ${marker(s, n)}` } }] };
  };
}

/** What one session's run left, checked turn by turn. */
interface SessionFigures {
  session: number;
  answered: number;
  notAnswered: number[];
  /** Turns whose requests or search answers showed another session's marker, with the sessions shown. */
  crossed: { turn: number; sessions: number[]; where: "view" | "search" | "store" }[];
  /** Turns whose output the model saw neither inline nor through a handle that holds it. */
  lostCaptures: number[];
  /**
   * Turns whose `exec` the host sent to the background (it ran past `tools.exec.backgroundMs`, 10 s, under load): the
   * tool result is the host's "Command still running" note, and the output comes later in a run the host starts.
   * No output reached a tool result, so there was nothing to capture.
   */
  backgrounded: number[];
  /** The head of each lost turn's tool results, as the model saw them. */
  lostSeen: { turn: number; seen: string }[];
  /** Outputs the store holds under this session (verified on read). */
  captured: number;
  /** Turns whose tool result, as the model saw it in that turn, named a handle. */
  shownWithHandle: number;
  /** Turns whose tool result the model saw as the host's truncated copy, with no handle (the capture came later). */
  hostCutWithoutHandle: number[];
  searchFoundOwn: boolean;
  engineMs: number[];
  /** Each assemble's own work: its wall time less what it spent awaiting (its `waits`). */
  engineOwnMs: number[];
  /** What each assemble awaited, per step. */
  engineWaits: Record<string, number>[];
  promptBytes: number[];
  turnMs: number[];
}

/** A running gateway and what the sessions of this bench share on it. */
interface TeamRig {
  gateway: Gateway;
  env: HostEnv;
  mock: { requests: MockRequest[] };
  turns: number;
  probes: { other: number; own: number };
  /** Every marker the store's outputs hold, with the sessions that stored them (read once, verified). */
  storedMarkers: () => Promise<Map<string, Set<string>>>;
  log: (line: string) => void;
}

/** One session's run as sent: per turn whether the user saw the model's answer, and its wall time. */
interface SessionRun {
  session: number;
  answered: Map<number, boolean>;
  turnMs: number[];
}

/** Checks one session's requests, search answers and captures turn by turn (see the module comment). */
async function checkSession(rig: TeamRig, run: SessionRun, events: readonly PluginEvent[]): Promise<SessionFigures> {
  const { turns, probes } = rig;
  const session = run.session;
  const requests = rig.mock.requests.filter((r) => r.partition === String(session));
  const crossed: SessionFigures["crossed"] = [];
  const lostCaptures: number[] = [];
  const backgrounded: number[] = [];
  const lostSeen: { turn: number; seen: string }[] = [];
  const hostCutWithoutHandle: number[] = [];
  let captured = 0;
  let shownWithHandle = 0;
  let searchFoundOwn = false;
  for (const r of requests) {
    const text = JSON.stringify(r.messages);
    const others = otherSessionsIn(text, session);
    if (!others.length) continue;
    crossed.push({ turn: r.turn, sessions: [...new Set(others)], where: "view" });
    const at = text.indexOf(`MARK-S${others[0]}-T`);
    rig.log(`S${session} turn ${r.turn} request shows S${others[0]}: …${text.slice(Math.max(0, at - 600), at + 40)}`);
  }
  const promptBytes: number[] = [];
  for (let n = 1; n <= turns; n++) {
    const ofTurn = requests.filter((r) => r.turn === n);
    const main = ofTurn.find((r) => r.indexInTurn === 0);
    if (main) promptBytes.push(main.messageBytes);
    const after = ofTurn.find((r) => hasToolResultInCurrentTurn(r.messages));
    const results = after ? toolResultsInCurrentTurn(after.messages).join("\n") : "";
    if (n === probes.other || n === probes.own) {
      const others = otherSessionsIn(results, session);
      if (others.length) crossed.push({ turn: n, sessions: [...new Set(others)], where: "search" });
      if (n === probes.own) searchFoundOwn = results.includes(`MARK-S${session}-T`);
      continue;
    }
    // Captured: the store holds the output (its marker) under this session. Small outputs stay inline, never stored.
    const holders = (await rig.storedMarkers()).get(marker(session, n));
    const inline = results.includes(marker(session, n));
    if (holders?.has(sessionKeyOf(session))) captured++;
    else if (!inline && BACKGROUNDED.test(results)) backgrounded.push(n);
    else if (!inline) {
      lostCaptures.push(n);
      lostSeen.push({ turn: n, seen: results.slice(0, 400) });
    }
    const strangers = [...(holders ?? [])].filter((k) => k !== sessionKeyOf(session));
    if (strangers.length)
      crossed.push({ turn: n, sessions: strangers.map((k) => Number(k.split("-").at(-1))), where: "store" });
    if (HANDLE.test(results)) shownWithHandle++;
    else if (!inline && parseHostCopy(results).omitted !== undefined) hostCutWithoutHandle.push(n);
  }
  const assembles = events.filter((e) => e.op === "assemble" && e.sessionKey === sessionKeyOf(session));
  const engineMs = assembles.map((e) => Number(e.ms ?? 0));
  const engineWaits = assembles.map((e) => (e.waits ?? {}) as Record<string, number>);
  const engineOwnMs = assembles.map(
    (e, i) => engineMs[i]! - Object.values(engineWaits[i]!).reduce((sum, ms) => sum + Number(ms), 0),
  );
  const notAnswered = [...run.answered].filter(([, ok]) => !ok).map(([n]) => n);
  return {
    session,
    answered: turns - notAnswered.length,
    notAnswered,
    crossed,
    lostCaptures,
    backgrounded,
    lostSeen,
    captured,
    shownWithHandle,
    hostCutWithoutHandle,
    searchFoundOwn,
    engineMs,
    engineOwnMs,
    engineWaits,
    promptBytes,
    turnMs: run.turnMs,
  };
}

/** The p50 of each awaited step's time, over the assembles that awaited it (0 where a step never ran). */
function waitsP50(waits: readonly Record<string, number>[]): Record<string, number> {
  const steps = new Set(waits.flatMap((w) => Object.keys(w)));
  return Object.fromEntries(
    [...steps].map((step) => [
      step,
      round(
        percentile(
          waits.map((w) => Number(w[step] ?? 0)),
          50,
        ),
      ),
    ]),
  );
}

/** Every marker in the store's outputs, with the session keys of the outputs that hold it. */
async function markersIn(store: ArtifactStore): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for await (const meta of store.list()) {
    const text = (await store.tryRead(meta.handle).catch(() => undefined))?.toString("utf8") ?? "";
    for (const m of text.matchAll(MARK)) {
      const holders = out.get(m[0]) ?? new Set<string>();
      holders.add(meta.origin?.sessionKey ?? "unknown");
      out.set(m[0], holders);
    }
  }
  return out;
}

/** Sends the bench's turns into session `s`, one after another. */
async function driveSession(rig: TeamRig, s: number): Promise<SessionRun> {
  const { gateway, env } = rig;
  const key = sessionKeyOf(s);
  const session: SeenTurnSession = {
    engineId: env.engineId,
    sessionKey: key,
    requests: () => rig.mock.requests.filter((r) => r.partition === String(s)),
    chatSend: (message) => gateway.chatSend(key, message),
    call: (method, params, timeoutMs) => gateway.call(method, params, timeoutMs),
    pluginEvents: async () => (await readPluginEvents(env)).filter((e) => e.sessionKey === key),
  };
  const answered = new Map<number, boolean>();
  const turnMs: number[] = [];
  for (let n = 1; n <= rig.turns; n++) {
    const t0 = Date.now();
    const seen = await sendTurnAsSeen(session, messageOf(s, n));
    turnMs.push(Date.now() - t0);
    answered.set(n, seen.answered);
    if (!seen.answered) rig.log(`S${s} turn ${n} not answered: ${seen.shown.slice(0, 120)}`);
  }
  return { session: s, answered, turnMs };
}

/** One session alone, then `sessions` at once, on one gateway of `version`; figures with the targets. */
export async function runConcurrentSessionsBench(options: ConcurrentSessionsOptions = {}) {
  const sessions = options.sessions ?? 10;
  const turns = options.turns ?? 50;
  const version = options.version ?? "2026.9.6";
  const log = options.log ?? (() => {});
  const probes = { other: Math.round(turns * 0.5), own: Math.round(turns * 0.5) + 1 };
  const solo = sessions;
  const html = await findHtml();
  const mock = await startMockModel({
    script: teamScript(probes, sessions + 1, html),
    partition: partitionOf,
    maxRequestsTotal: (sessions + 1) * turns * 8,
  });
  let env: HostEnv | undefined;
  let gateway: Gateway | undefined;
  try {
    env = await createHostEnv({ version, baseUrl: mock.baseUrl, modelId: mock.modelId, ...MODEL });
    gateway = await startGateway(env);
    const ledgerRoot = path.join(env.stateDir, "context-ledger");
    const store = createArtifactStore({ root: artifactRoot(ledgerRoot, "main") });
    let markers: Promise<Map<string, Set<string>>> | undefined;
    const rig: TeamRig = {
      gateway,
      env,
      mock,
      turns,
      probes,
      storedMarkers: () => (markers ??= markersIn(store)),
      log,
    };

    const t0 = Date.now();
    const alone = await driveSession(rig, solo);
    const soloSec = (Date.now() - t0) / 1000;
    log(`S${solo} alone: ${turns} turns in ${Math.round(soloSec)} s`);
    const t1 = Date.now();
    const team = await Promise.all(Array.from({ length: sessions }, (_, s) => driveSession(rig, s)));
    const teamSec = (Date.now() - t1) / 1000;
    log(`${sessions} sessions at once: ${sessions * turns} turns in ${Math.round(teamSec)} s`);

    const events = await readPluginEvents(env);
    const soloFigures = await checkSession(rig, alone, events);
    const teamFigures = await Promise.all(team.map((run) => checkSession(rig, run, events)));
    const p50 = (values: number[]) => round(percentile(values, 50));
    const summary = (fs: SessionFigures[]) => ({
      answered: fs.reduce((n, f) => n + f.answered, 0),
      crossed: fs.flatMap((f) => f.crossed.map((c) => ({ session: f.session, ...c }))),
      lostCaptures: fs.flatMap((f) => f.lostCaptures.map((turn) => ({ session: f.session, turn }))),
      lostSeen: fs.flatMap((f) => f.lostSeen.map((l) => ({ session: f.session, ...l }))),
      backgrounded: fs.reduce((n, f) => n + f.backgrounded.length, 0),
      captured: fs.reduce((n, f) => n + f.captured, 0),
      shownWithHandle: fs.reduce((n, f) => n + f.shownWithHandle, 0),
      hostCutWithoutHandle: fs.reduce((n, f) => n + f.hostCutWithoutHandle.length, 0),
      searchFoundOwn: fs.filter((f) => f.searchFoundOwn).length,
      engineMsP50: p50(fs.flatMap((f) => f.engineMs)),
      engineOwnMsP50: p50(fs.flatMap((f) => f.engineOwnMs)),
      engineWaitsP50: waitsP50(fs.flatMap((f) => f.engineWaits)),
      promptBytesP50: p50(fs.flatMap((f) => f.promptBytes)),
      turnMsP50: p50(fs.flatMap((f) => f.turnMs)),
    });
    const one = summary([soloFigures]);
    const many = summary(teamFigures);
    const plugin = await pluginBytes(ledgerRoot);
    const result = {
      version,
      sessions,
      turns,
      wallSec: { alone: Math.round(soloSec), atOnce: Math.round(teamSec) },
      alone: one,
      atOnce: many,
      rssMb: groupRssMb(gateway.pid),
      pluginStateBytes: plugin.state,
      storeBytes: plugin.store,
      perSession: teamFigures.map(({ engineMs, engineOwnMs, engineWaits, promptBytes, turnMs, ...f }) => ({
        ...f,
        engineMsP50: p50(engineMs),
        engineOwnMsP50: p50(engineOwnMs),
        engineWaitsP50: waitsP50(engineWaits),
        promptBytesP50: p50(promptBytes),
        turnMsP50: p50(turnMs),
      })),
    };
    log(`alone ${JSON.stringify(one)}`);
    log(`at once ${JSON.stringify({ ...many, crossed: many.crossed.length, lostCaptures: many.lostCaptures.length })}`);
    const ratio = (a: number, b: number) => round(a / Math.max(0.01, b));
    return {
      ...result,
      targets: {
        answered: check(many.answered, ">=", sessions * turns, "turns"),
        crossed: check(many.crossed.length, "<=", 0, "turns"),
        lostCaptures: check(many.lostCaptures.length + one.lostCaptures.length, "<=", 0, "turns"),
        searchFindsOwn: check(many.searchFoundOwn, ">=", sessions, "sessions"),
        engineTimeVsAlone: check(ratio(many.engineMsP50, one.engineMsP50), "<=", 2, "x"),
        engineOwnTimeVsAlone: check(ratio(many.engineOwnMsP50, one.engineOwnMsP50), "<=", 2, "x"),
        promptBytesVsAlone: check(ratio(many.promptBytesP50, one.promptBytesP50), "<=", 2, "x"),
      },
    };
  } finally {
    await gateway?.stop().catch(() => undefined);
    await stopAllGroups();
    await mock.close();
    await env?.cleanup();
  }
}
