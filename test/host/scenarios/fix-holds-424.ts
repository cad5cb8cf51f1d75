/**
 * The fix holds on 2026.4.24 (the release with the reset loop): the
 * workload that resets the session with a naive engine (see reset-loop-bites.ts) runs
 * 13 exec turns and a fetch turn with context-ledger through the gateway's chat.send.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { formatTurn } from "../gateway-session.js";
import { NODE_BINARY, RESET_LOOP_HOST } from "../host-install.js";
import { assertWorded } from "../log-wording.js";
import { grepLines } from "../logs.js";
import { bandRatio, promptTokensPerTurn, requestsOverBudget } from "../metrics.js";
import { execTurnScript, printedChars, toolResultsInCurrentTurn, toolTurnScript } from "../mock-scripts.js";
import { loadTokenCounter } from "../token-count.js";
import { SessionFiles } from "../transcripts.js";
import { RESET_LOOP_WORKLOAD as W } from "../workloads.js";
import type { HostScenario } from "./scenario.js";
import { engineTurnSettled, waitForEvents } from "../settle.js";
import { runScenarioTurns } from "./turns.js";

// 13 exec turns, then a fetch turn: the last 10 exec turns (4-13) are past the first
// fill of the window, and the transcript's message entries, growing linearly with turns, more than triple across them.
const TURNS = W.maxTurns + 1;
const FETCH_MESSAGE = "Fetch lines 40-90 of the first report output again, exactly.";
const FETCH_LINES = { start: 40, end: 90 };

/**
 * The handle of the largest captured exec output, read from the plugin's own state (content-addressed: the same output,
 * the same handle).
 */
function capturedHandle(stateDir: string, sessionName: string): string {
  const dir = path.join(stateDir, "context-ledger", "agents", "main", "captures");
  // Records sit per session (captures/v2/<session>/<call>.<handle tail>.json); other scenarios share the gateway.
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
    (f) => f.endsWith(".json") && path.dirname(f).includes(sessionName),
  );
  const records = files.map(
    (f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { handle: string; chars: number },
  );
  const largest = records.sort((a, b) => b.chars - a.chars || a.handle.localeCompare(b.handle))[0];
  if (!largest) throw new Error(`Expected a captured exec output in ${dir}`);
  return largest.handle;
}

/** A tool message's text: the string itself, or the texts of a JSON array of parts. */
function plainText(content: string): string {
  try {
    const parsed = JSON.parse(content) as unknown;
    if (Array.isArray(parsed))
      return parsed
        .map((p) => (p && typeof p === "object" && "text" in p ? String((p as { text: unknown }).text) : ""))
        .join("\n");
  } catch {
    // not JSON: plain text
  }
  return content;
}

export const fixHolds424: HostScenario = {
  name: "fix-holds-424",
  lines: [RESET_LOOP_HOST],
  engines: ["context-ledger"],
  async run(session) {
    const counter = await loadTokenCounter();
    const exec = execTurnScript({ outputChars: W.outputChars, answerChars: W.answerChars, nodePath: NODE_BINARY });
    const fetch = toolTurnScript({
      call: () => ({
        name: "ledger_fetch",
        args: {
          handle: capturedHandle(session.env.stateDir, "fix-holds-424"),
          selector: { kind: "range", start: FETCH_LINES.start, end: FETCH_LINES.end },
        },
      }),
      answer: () => "Here are the lines you asked for.",
    });
    // The fetch is chosen by the user's words, not a turn number.
    session.setScript((request) => (request.userText.includes(FETCH_MESSAGE) ? fetch(request) : exec(request)));
    const files = new SessionFiles(session.env, session.sessionKey);
    const transcriptBytes: number[] = [];
    // The raw transcript as the host keeps it: message entries in its JSONL (append-only; rewrites add entries too).
    const transcriptEntries: number[] = [];
    const records = await runScenarioTurns(session, {
      turns: TURNS,
      files,
      onTurn: (r) => {
        transcriptBytes.push(files.bytes());
        transcriptEntries.push(files.messageEntries());
        console.log(`[fix-424] ${formatTurn(r)} transcript=${transcriptBytes.at(-1)}B`);
      },
    });
    // 2026.4.24 queues a message sent while turn 13's post-turn work runs: the fetch waits for it, as a user would see
    // it answered.
    await waitForEvents(() => session.pluginEvents(), engineTurnSettled, { timeoutMs: 30_000 });
    const before = session.requests().length;
    const sent = await session.chatSend(FETCH_MESSAGE);
    const fetchRequests = session.requests().slice(before);
    console.log(`[fix-424] fetch turn: ${String(sent.wait.status)} ${fetchRequests.length} requests`);
    const events = await session.pluginEvents();
    const log = await session.hostLog();

    // 2: no reset over 13 turns, every request within the window, precheck retries counted.
    const detail = grepLines(log, /context-overflow|overflow detected|Auto-compaction|Restarting session/).join("\n");
    const last = records.at(-1);
    expect(records).toHaveLength(TURNS);
    expect(
      records.every((r) => r.status === "ok"),
      detail,
    ).toBe(true);
    for (const signal of ["sessionRestarted", "compactionFailed", "overflowDetected"] as const)
      assertWorded(signal, session.version);
    expect(last?.signals.sessionRestarted, detail).toBe(0);
    expect(last?.resetReplies, detail).toBe(0);
    expect(last?.signals.compactionFailed, detail).toBe(0);
    expect(requestsOverBudget(records, W.contextWindow, counter)).toHaveLength(0);
    const retries = last?.signals.overflowDetected ?? -1;
    console.log(
      `[fix-424] precheck verdicts ${last?.signals.precheck}, compaction retries ${retries}, paydowns ${events.filter((e) => e.op === "paydown").length}`,
    );
    // The goal: maintain() pays the raw transcript down before the precheck sizes it.
    expect(retries, detail).toBe(0);
    expect(events.filter((e) => e.op === "paydown" && e.changed === true).length).toBeGreaterThanOrEqual(1);
    expect(events.filter((e) => e.op === "assemble")).not.toHaveLength(0);

    // 4: over the last 10 turns the per-turn peak prompt stays in a 1.5 band while the transcript's entries triple.
    const perTurn = promptTokensPerTurn(records, counter).slice(-10);
    const peaks = perTurn.map((requests) => Math.max(...requests));
    console.log(
      `[fix-424] peak prompt tokens per turn ${peaks.join(",")}; all requests band ${bandRatio(perTurn.flat()).toFixed(2)}; transcript bytes ${transcriptBytes.join(",")}`,
    );
    expect(bandRatio(peaks)).toBeLessThanOrEqual(1.5);
    // Growth across the last 10 turns: from the transcript as they began (after turn 3) to after turn 13.
    const start = transcriptBytes.at(-11) ?? 1;
    const end = transcriptBytes.at(-1) ?? 0;
    console.log(
      `[fix-424] transcript message entries ${transcriptEntries.join(",")}; bytes x${(end / start).toFixed(2)} across the last 10 turns`,
    );
    // The session's message entries triple; the file's bytes grow less, since superseded lines leave it each turn.
    expect((transcriptEntries.at(-1) ?? 0) / (transcriptEntries.at(-11) ?? 1)).toBeGreaterThanOrEqual(3);

    // 5: a later ledger_fetch of an earlier 150,000-char output returns exactly the requested lines.
    const answered = fetchRequests.flatMap((q) => toolResultsInCurrentTurn(q.messages));
    const expected = printedChars(W.outputChars)
      .split("\n")
      .slice(FETCH_LINES.start - 1, FETCH_LINES.end)
      .join("\n");
    const texts = answered.map(plainText);
    expect(texts.length, JSON.stringify(answered).slice(0, 500)).toBeGreaterThanOrEqual(1);
    expect(
      texts.some((t) => t.includes(expected)),
      texts.join("\n---\n").slice(0, 800),
    ).toBe(true);
  },
};
