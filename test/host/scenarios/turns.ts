import type { TurnRecord } from "../gateway-session.js";
import { countHostLogSignals } from "../logs.js";
import { SessionFiles } from "../transcripts.js";
import { turnMessage } from "../workloads.js";
import type { ScenarioSession } from "./scenario.js";
import { engineTurnSettled, waitForEvents } from "../settle.js";

/** Options for {@link runScenarioTurns}. */
export interface RunScenarioTurnsOptions {
  /** Turns to run at most. */
  turns: number;
  /** The user message of turn `n`. @default turnMessage */
  message?: (turn: number) => string;
  /** Stop early once this returns true for the latest record. */
  stopWhen?: (record: TurnRecord, all: TurnRecord[]) => boolean;
  /** Called after each turn (progress output). */
  onTurn?: (record: TurnRecord) => void;
  /** The session's transcript files, tracked across turns (pass one to keep reading them after). */
  files?: SessionFiles;
}

/**
 * Drives numbered user turns through a scenario's session, recording each: the model
 * requests of the turn (this scenario's only), the host log signals since the scenario
 * opened (cumulative) and the reset replies in this session's JSONL transcripts.
 */
export async function runScenarioTurns(
  session: ScenarioSession,
  options: RunScenarioTurnsOptions,
): Promise<TurnRecord[]> {
  const files = options.files ?? new SessionFiles(session.env, session.sessionKey);
  const records: TurnRecord[] = [];
  // Engines that log their lifecycle (context-ledger, the test engines) tell when their
  // post-turn work is done; the next message waits for it, as a person reading the answer would.
  const logsEvents = session.engineId !== "legacy";
  for (let turn = 1; turn <= options.turns; turn++) {
    const before = session.requests().length;
    const eventsBefore = logsEvents ? (await session.pluginEvents()).length : 0;
    const result = await session.chatSend((options.message ?? turnMessage)(turn));
    if (logsEvents)
      await waitForEvents(async () => (await session.pluginEvents()).slice(eventsBefore), engineTurnSettled, {
        timeoutMs: 30_000,
      });
    await files.refresh();
    const record: TurnRecord = {
      turn,
      ms: result.ms,
      status: String(result.wait.status ?? "unknown"),
      requests: session.requests().slice(before),
      signals: countHostLogSignals(await session.hostLog()),
      resetReplies: files.resetReplies(),
      ...(result.queued ? { queued: true } : {}),
    };
    records.push(record);
    options.onTurn?.(record);
    if (options.stopWhen?.(record, records)) break;
  }
  return records;
}
