/**
 * The reset-loop workload on every host line. Each turn an `exec` prints
 * 150,000 chars and the model answers 12,000 chars, 6 turns, window 32,000,
 * maxTokens 4,096. For context-ledger: every turn's final answer is the model's
 * text (not a host notice), no request asks for less than maxTokens (where the host
 * itself leaves that much to an empty conversation), no reset, and the raw
 * transcript stays smaller than legacy's (legacy's run writes its figures).
 */
import { expect } from "vitest";
import { HOST_LINES } from "../host-install.js";
import type { MockRequest } from "../mock-model.js";
import { countHostLogSignals, readHostLog } from "../logs.js";
import { execTurnScript } from "../mock-scripts.js";
import { RESET_LOOP_WORKLOAD, turnMessage } from "../workloads.js";
import { answerCountsInHistory, sendTurnAsSeen } from "../turn-as-seen.js";
import { LEGACY_CONTROL_LINES, legacyControlOn, SCENARIO_MODEL, type HostScenario } from "./scenario.js";
import { grantCliScopes } from "./cli-scopes.js";
import { expectFiguresAgree } from "./operator-figures.js";
import { outputAllowance, readFigures, recordFigures, transcriptSize } from "./turn-figures.js";

/** Turns of the workload. */
export const RESET_LOOP_TURNS = 6;

/** Lines whose shared gateway restarts after the session, to read the history as a restarted gateway serves it. */
const RESTART_LINES: readonly string[] = ["2026.4.24", "2026.7.35", "2026.9.6"];

/** One turn as the user saw it. */
export interface ResetLoopTurn {
  turn: number;
  status: string;
  ms: number;
  requests: number;
  /** The model produced the turn's final answer and the user's client shows it. */
  answeredByModel: boolean;
  /** First 80 chars of what the client shows. */
  shown: string;
  minOutputAllowance: number | null;
}

/** System prompt and tool-schema chars of a request (what the host adds around the engine's view). */
export function requestOverhead(request: MockRequest | undefined): { systemChars: number; toolsChars: number } | null {
  if (!request) return null;
  const system = request.messages.find(
    (m) => (m as { role?: unknown }).role === "system" || (m as { role?: unknown }).role === "developer",
  );
  const content = (system as { content?: unknown } | undefined)?.content;
  const systemChars = typeof content === "string" ? content.length : JSON.stringify(content ?? "").length;
  return { systemChars, toolsChars: JSON.stringify(request.body.tools ?? []).length };
}

/**
 * The output allowance of the scenario's first request: turn 1 carries no history, so this is what the host's
 * own system prompt, tool schemas and the user's message leave (no engine can do better). Null when unset.
 */
export function allowanceCeiling(requests: readonly MockRequest[]): number | null {
  const first = requests.find((r) => r.turn === 1 && r.indexInTurn === 0);
  return first ? (outputAllowance(first) ?? null) : null;
}

export const resetLoopScenario: HostScenario = {
  name: "reset-loop",
  lines: HOST_LINES,
  engines: ["context-ledger", "legacy"],
  legacyLines: LEGACY_CONTROL_LINES,
  async run(session) {
    await grantCliScopes(session.env);
    session.setScript(
      execTurnScript({ outputChars: RESET_LOOP_WORKLOAD.outputChars, answerChars: RESET_LOOP_WORKLOAD.answerChars }),
    );
    const turns: ResetLoopTurn[] = [];
    // Each turn's final answer as the model wrote it ("" when it wrote none).
    const answers: string[] = [];
    for (let n = 1; n <= RESET_LOOP_TURNS; n++) {
      const seen = await sendTurnAsSeen(session, turnMessage(n));
      const { result, requests, shown, answered: modelAnswer } = seen;
      answers.push(seen.modelAnswer ?? "");
      const allowances = requests.map(outputAllowance).filter((v): v is number => v !== undefined);
      turns.push({
        turn: n,
        status: String(result.wait.status ?? "unknown"),
        ms: result.ms,
        requests: requests.length,
        answeredByModel: modelAnswer,
        shown: shown.slice(0, 80),
        minOutputAllowance: allowances.length > 0 ? Math.min(...allowances) : null,
      });
    }
    const signals = countHostLogSignals(await readHostLog(session.env));
    const transcript = await transcriptSize(session);
    const allowances = turns.map((t) => t.minOutputAllowance).filter((v): v is number => v !== null);
    const figures = {
      answered: turns.filter((t) => t.answeredByModel).length,
      turns: turns.length,
      minOutputAllowance: allowances.length > 0 ? Math.min(...allowances) : null,
      resets: signals.sessionRestarted + signals.resetReply,
      transcript,
      wallMs: turns.reduce((s, t) => s + t.ms, 0),
      requestOverhead: requestOverhead(session.requests()[0]),
      allowanceCeiling: allowanceCeiling(session.requests()),
      perTurn: turns,
    };
    await recordFigures("reset-loop", session, figures);
    if (session.engineId !== "context-ledger") {
      // Controls: legacy's run must reach the model at least once, or the workload proves nothing.
      expect(
        turns.some((t) => t.requests > 0),
        "legacy made no model request at all",
      ).toBe(true);
      return;
    }
    expect(turns.map((t) => (t.answeredByModel ? "model" : `notice: ${t.shown}`))).toEqual(turns.map(() => "model"));
    // Legacy's run of this line, which runs first in the line file where this run has the control.
    const controlled = legacyControlOn(resetLoopScenario, session.version);
    const legacy = controlled ? await readFigures("reset-loop", session.version, "legacy") : undefined;
    if ((figures.allowanceCeiling ?? SCENARIO_MODEL.maxTokens) >= SCENARIO_MODEL.maxTokens) {
      expect(figures.minOutputAllowance ?? SCENARIO_MODEL.maxTokens).toBeGreaterThanOrEqual(SCENARIO_MODEL.maxTokens);
    } else {
      // The host's own system prompt and tool schemas leave less than maxTokens before any history (2026.8.2 at
      // 32,000): no engine can keep the allowance, so it is not claimed; legacy's run must show the same clamp.
      console.log(
        `[reset-loop] ${session.version}: the host clamps an empty conversation to ${String(figures.allowanceCeiling)} output tokens; allowance not claimed`,
      );
      if (controlled) {
        expect(legacy?.allowanceCeiling, `legacy's run on ${session.version} recorded no allowance ceiling`).toBeTypeOf(
          "number",
        );
        expect(legacy?.allowanceCeiling as number).toBeLessThan(SCENARIO_MODEL.maxTokens);
      }
    }
    expect(figures.resets).toBe(0);
    // The operator's figures mean what they say, on the line whose reset loop the project ends.
    if (session.version === "2026.4.24") await expectFiguresAgree(session);
    // The history a user reopens: every answer once and whole, and again after a gateway restart where the suite
    // restarts one (the lines the issue names: 2026.4.24, one of 2026.5.28-2026.8.x, 2026.9.6).
    const once = answers.map(() => 1);
    expect(await answerCountsInHistory(session, answers), "each answer in chat.history").toEqual(once);
    if (RESTART_LINES.includes(session.version)) {
      await session.restartGateway();
      expect(await answerCountsInHistory(session, answers), "after a gateway restart").toEqual(once);
    }
    expect(transcript.store).not.toBe("none");
    // Bounded: the active branch the host replays stays under one turn's raw exec output per turn.
    const active = transcript.activeBytes ?? transcript.bytes;
    expect(active).toBeLessThan(RESET_LOOP_TURNS * RESET_LOOP_WORKLOAD.outputChars);
    if (!controlled) return;
    const legacyTranscript = legacy?.transcript as { bytes?: number; activeBytes?: number } | undefined;
    const legacyActive = legacyTranscript?.activeBytes ?? legacyTranscript?.bytes;
    expect(
      legacyActive,
      `legacy's run on ${session.version} recorded no transcript size (it runs first in the line file)`,
    ).toBeTypeOf("number");
    console.log(
      `[reset-loop] ${session.version} raw transcript: context-ledger ${active} bytes, legacy ${String(legacyActive)} bytes`,
    );
    // Fair only against a legacy run that kept its conversation and answered every turn: a reset session, or one
    // whose turns the host skipped (legacy answers 1 of 6 on 2026.5.28-2026.7.x), is small because no work was kept.
    if (legacy?.resets === 0 && legacy.answered === RESET_LOOP_TURNS)
      expect(active).toBeLessThan(legacyActive as number);
  },
};
