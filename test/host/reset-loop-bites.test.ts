/**
 * Issue 5, assertion 1: the reset-loop workload bites on 2026.4.24 without
 * context-ledger. A naive engine (small assembled tail, `compact()` that reports
 * success without shrinking) meets the raw-transcript precheck: the host logs
 * `[context-overflow-precheck]`, retries compaction, gives up and resets the session
 * with "I've reset our conversation" — within 12 turns, through the gateway's
 * chat.send path where the reset lives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatTurn, runChatTurns, startHostRig, type HostRig } from "./gateway-session.js";
import { NODE_BINARY, RESET_LOOP_HOST } from "./host-install.js";
import { grepLines, readHostLog } from "./logs.js";
import { execTurnScript } from "./mock-scripts.js";
import { RESET_LOOP_WORKLOAD as W } from "./workloads.js";

describe("reset loop on 2026.4.24 (naive engine, gateway chat.send)", () => {
  let rig: HostRig | undefined;
  const started = Date.now();

  beforeAll(async () => {
    rig = await startHostRig({
      version: RESET_LOOP_HOST,
      engine: { testEngine: "naive" },
      contextWindow: W.contextWindow,
      script: execTurnScript({ outputChars: W.outputChars, answerChars: W.answerChars, nodePath: NODE_BINARY }),
    });
    console.log(`[reset-loop-bites] gateway ready in ${(rig.gateway.startMs / 1000).toFixed(1)}s`);
  });

  afterAll(async () => {
    await rig?.close();
    console.log(`[reset-loop-bites] file wall time ${((Date.now() - started) / 1000).toFixed(1)}s`);
  });

  it("logs the precheck, three compaction retries and the reset reply within 12 turns", async () => {
    if (!rig) throw new Error("Expected the host rig to start");
    const records = await runChatTurns(rig, {
      turns: W.maxTurns,
      onTurn: (r) => console.log(`[reset-loop-bites] ${formatTurn(r)}`),
      // One complete reset is the proof; more turns only cost time.
      stopWhen: (r) => r.signals.sessionRestarted >= 1 && r.resetReplies >= 1,
    });
    const last = records.at(-1);
    const log = await readHostLog(rig.env);
    const detail = grepLines(log, /context-overflow|overflow detected|Auto-compaction|Restarting session/).join("\n");

    expect(records.length, detail).toBeLessThanOrEqual(W.maxTurns);
    expect(last?.signals.precheck, detail).toBeGreaterThanOrEqual(1);
    // The host tries auto-compaction three times before giving up.
    expect(last?.signals.overflowDetected, detail).toBeGreaterThanOrEqual(3);
    expect(last?.signals.compactionFailed, detail).toBeGreaterThanOrEqual(1);
    expect(last?.signals.sessionRestarted, detail).toBeGreaterThanOrEqual(1);
    expect(last?.resetReplies, detail).toBeGreaterThanOrEqual(1);
    expect(grepLines(log, /route=compact_then_truncate|route=compact_only/).length).toBeGreaterThanOrEqual(1);
  });
});
