/**
 * Real-host smoke on every host line: three tool turns (`exec` printing 4,000 chars, a 600-char answer) run through
 * the working tree's context-ledger, never degraded to legacy, never quarantined, with the lifecycle of the line
 * ({@link ingestOps}). What `openclaw plugins inspect` reports of the installed package, every line: install-path.
 */
import { expect } from "vitest";
import { HOST_LINES, NODE_BINARY, type HostVersion } from "../host-install.js";
import { assertWorded } from "../log-wording.js";
import { countHostLogSignals, lifecycleSummary, type PluginEvent } from "../logs.js";
import { execTurnScript } from "../mock-scripts.js";
import { turnMessage } from "../workloads.js";
import type { HostScenario, ScenarioSession } from "./scenario.js";
import { waitForEvents } from "../settle.js";

const TURNS = 3;

/**
 * How each line hands a turn to the engine (observed here, per tool-loop step and turn):
 * 2026.4.24 - 2026.7.35 `afterTurn` after each tool-loop step; 2026.8.2 `afterTurn` after
 * each step and `commitTurn` at the end of the turn; 2026.9.6 `commitTurn` only.
 * `ingest`/`ingestBatch` are never called while `afterTurn` or `commitTurn` exist.
 */
export function ingestOps(version: HostVersion): ("afterTurn" | "commitTurn")[] {
  if (version === "2026.9.6") return ["commitTurn"];
  if (version === "2026.8.2") return ["afterTurn", "commitTurn"];
  return ["afterTurn"];
}

/** The turn's engine work is over: `maintain` or `dispose` after the last ingestion. */
function turnSettled(events: readonly PluginEvent[], ingest: readonly string[]): boolean {
  const ops = events.map((e) => e.op);
  const last = Math.max(...ingest.map((op) => ops.lastIndexOf(op)));
  return last >= 0 && ops.slice(last + 1).some((op) => op === "maintain" || op === "dispose");
}

export const smoke: HostScenario = {
  name: "smoke",
  lines: HOST_LINES,
  engines: ["context-ledger"],
  async run(session: ScenarioSession) {
    const tag = `[smoke ${session.version}]`;
    session.setScript(execTurnScript({ outputChars: 4_000, answerChars: 600, nodePath: NODE_BINARY }));
    const ingest = ingestOps(session.version);
    const turnEvents: PluginEvent[][] = [];
    const turnMs: number[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      const before = (await session.pluginEvents()).length;
      const sent = await session.chatSend(turnMessage(turn));
      expect(sent.wait.status, JSON.stringify(sent.wait)).toBe("ok");
      turnMs.push(sent.ms);
      const events = await waitForEvents(
        async () => (await session.pluginEvents()).slice(before),
        (e) => turnSettled(e, ingest),
      );
      turnEvents.push(events);
      const statuses = events.filter((e) => typeof e.status === "string").map((e) => `${e.op}:${String(e.status)}`);
      console.log(
        `${tag} turn ${turn} ${(sent.ms / 1000).toFixed(1)}s: ${lifecycleSummary(events)} [${statuses.join(" ")}]`,
      );
    }
    console.log(`${tag} turns ${turnMs.map((ms) => (ms / 1000).toFixed(1)).join("/")}s`);

    const signals = countHostLogSignals(await session.hostLog());
    // Lines without a degrade or quarantine path word neither (a zero there would be vacuous).
    if (ingest.includes("commitTurn")) {
      assertWorded("degradedToLegacy", session.version);
      expect(signals.degradedToLegacy).toBe(0);
    }
    if (session.version !== "2026.4.24") {
      assertWorded("quarantined", session.version);
      expect(signals.quarantined).toBe(0);
    }
    assertWorded("engineFailed", session.version);
    expect(signals.engineFailed).toBe(0);
    expect(turnEvents).toHaveLength(TURNS);
    turnEvents.forEach((events, i) => {
      const ops = new Set(events.map((e) => e.op));
      const expected = [
        "factory",
        "assemble",
        ...ingest,
        "maintain",
        ...(session.version === "2026.9.6" && i > 0 ? ["bootstrap"] : []),
      ];
      for (const op of expected) expect(ops, `turn ${i + 1} ops: ${[...ops].join(",")}`).toContain(op);
      // Only the line's own ways of ingesting.
      const others = ["afterTurn", "commitTurn", "ingest", "ingestBatch"].filter(
        (op) => !(ingest as string[]).includes(op),
      );
      expect(
        others.filter((op) => ops.has(op)),
        `turn ${i + 1} ops: ${[...ops].join(",")}`,
      ).toEqual([]);
    });
    // Each turn made at least the tool call and the answer.
    expect(session.requests().length).toBeGreaterThanOrEqual(2 * TURNS);
  },
};
