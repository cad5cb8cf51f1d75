/**
 * The reset loop bites without the fix, and the live positive control of the 2026.4.24 log patterns:
 * the reset-loop workload bites on 2026.4.24 without context-ledger. A naive engine
 * (small assembled tail, `compact()` that reports success without shrinking) meets the
 * raw-transcript precheck: the host logs `[context-overflow-precheck]`, retries
 * compaction three times, gives up and resets the session with "I've reset our
 * conversation", within 12 turns, through the gateway's chat.send path.
 */
import { expect } from "vitest";
import { formatTurn } from "../gateway-session.js";
import { NODE_BINARY, RESET_LOOP_HOST } from "../host-install.js";
import { grepLines } from "../logs.js";
import { execTurnScript } from "../mock-scripts.js";
import { RESET_LOOP_WORKLOAD as W } from "../workloads.js";
import type { HostScenario } from "./scenario.js";
import { runScenarioTurns } from "./turns.js";

export const resetLoopBites: HostScenario = {
  name: "reset-loop-bites",
  lines: [RESET_LOOP_HOST],
  engines: [{ testEngine: "naive" }],
  async run(session) {
    session.setScript(
      execTurnScript({ outputChars: W.outputChars, answerChars: W.answerChars, nodePath: NODE_BINARY }),
    );
    const records = await runScenarioTurns(session, {
      turns: W.maxTurns,
      onTurn: (r) => console.log(`[reset-loop-bites] ${formatTurn(r)}`),
      // One complete reset is the proof; more turns only cost time.
      stopWhen: (r) => r.signals.sessionRestarted >= 1 && r.resetReplies >= 1,
    });
    const last = records.at(-1);
    const log = await session.hostLog();
    const detail = grepLines(log, /context-overflow|overflow detected|Auto-compaction|Restarting session/).join("\n");

    expect(records.length, detail).toBeLessThanOrEqual(W.maxTurns);
    expect(last?.signals.precheck, detail).toBeGreaterThanOrEqual(1);
    // The host tries auto-compaction three times before giving up.
    expect(last?.signals.overflowDetected, detail).toBeGreaterThanOrEqual(3);
    expect(last?.signals.compactionFailed, detail).toBeGreaterThanOrEqual(1);
    expect(last?.signals.sessionRestarted, detail).toBeGreaterThanOrEqual(1);
    expect(last?.resetReplies, detail).toBeGreaterThanOrEqual(1);
    expect(grepLines(log, /route=compact_then_truncate|route=compact_only/).length).toBeGreaterThanOrEqual(1);
  },
};
