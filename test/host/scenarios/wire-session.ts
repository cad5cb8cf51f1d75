/**
 * On 2026.9.6: a short tool-heavy session (each turn an `exec` printing 40,000 chars, window 32,000) on
 * each wire besides chat completions ({@link WIRE_AGENTS}: an agent whose provider speaks it), for
 * context-ledger and legacy. The strict mock of that wire judges every request (refusing for
 * context-ledger, observing for legacy) and bills it; each run prints its bill as a table.
 */
import { expect } from "vitest";
import type { MockRequest } from "../mock-model.js";
import { execTurnScript } from "../mock-scripts.js";
import { describeSeenTurn, sendTurnAsSeen } from "../turn-as-seen.js";
import { BILL_TABLE_HEADER, billRequests, billRow, type WireBill } from "../wire-billing.js";
import { WIRE_AGENTS, type WireAgent } from "../wire-agents.js";
import { turnMessage } from "../workloads.js";
import { pollUntil } from "../settle.js";
import { grantCliScopes } from "./cli-scopes.js";
import { scenarioTag } from "./shared-rig.js";
import type { HostScenario, ScenarioSession } from "./scenario.js";
import { readFigures, recordFigures } from "./turn-figures.js";

/** Turns and per-turn tool output of a wire session (short: it runs per wire and engine on the 9.6 line). */
export const WIRE_SESSION = { turns: 5, outputChars: 40_000, answerChars: 2_000 } as const;

/** How long no new request on the wire means the agent's host-started runs are over. */
const WIRE_QUIET_MS = 2_000;

/** Runs the wire session in `session` (an agent of `agent.wire`) and records its figures under `name`. */
export async function measureWireSession(session: ScenarioSession, agent: WireAgent, name: string) {
  await grantCliScopes(session.env);
  session.setScript(execTurnScript({ outputChars: WIRE_SESSION.outputChars, answerChars: WIRE_SESSION.answerChars }));
  const perTurn: { turn: number; answered: boolean; requests: number; seen: string; ms: number }[] = [];
  for (let n = 1; n <= WIRE_SESSION.turns; n++) {
    const seen = await sendTurnAsSeen(session, turnMessage(n));
    perTurn.push({
      turn: n,
      answered: seen.answered,
      requests: seen.requests.length,
      seen: describeSeenTurn(seen),
      ms: seen.result.ms,
    });
  }
  // The agent's host-started runs (memory flush) may still be under way, and may be routed to another scenario.
  const onWire = await pollUntil(
    async () => {
      const before = session.gatewayRequests().filter((r) => r.wire === agent.wire).length;
      await new Promise((resolve) => setTimeout(resolve, WIRE_QUIET_MS));
      return { before, now: session.gatewayRequests().filter((r) => r.wire === agent.wire) };
    },
    ({ before, now }) => now.length === before,
    { timeoutMs: 20_000, intervalMs: 0 },
  ).then(({ now }) => now);
  const tag = scenarioTag(name);
  const bill = billRequests(agent.wire, onWire);
  const answered = perTurn.filter((t) => t.answered).length;
  const figures = {
    wire: agent.wire,
    answered,
    turns: perTurn.length,
    // Requests of this scenario's own turns (tagged) that came over another wire.
    otherWireRequests: session
      .requests()
      .filter((r) => r.userText.includes(tag) && r.wire !== agent.wire)
      .map((r) => ({ wire: r.wire, turn: r.turn, tools: r.toolNames, userText: r.userText.slice(0, 160) })),
    bill,
    // Requests the host started on its own in the agent's sessions (memory flush, titles): no turn message in them.
    hostRunRequests: onWire.filter((r) => !r.userText.includes(tag)).length,
    firstRequest: requestShape(onWire[0]),
    prefixBreaks: prefixBreaks(onWire),
    wallMs: perTurn.reduce((s, t) => s + t.ms, 0),
    perTurn,
    perRequest: onWire.map((r) => ({
      turn: r.turn,
      indexInTurn: r.indexInTurn,
      tools: r.toolNames.length,
      ...r.usage,
      ...(r.rejected ? { rejected: r.rejected } : {}),
      ...(r.violation ? { violation: r.violation } : {}),
    })),
  };
  await recordFigures(name, session, figures);
  const rows = [billRow(session.engineId, `${answered}/${perTurn.length}`, bill)];
  const legacy = session.engineId === "legacy" ? undefined : await readFigures(name, session.version, "legacy");
  if (legacy)
    rows.unshift(billRow("legacy", `${String(legacy.answered)}/${String(legacy.turns)}`, legacy.bill as WireBill));
  console.log(`[${name}] ${session.version} ${session.engineId}\n${BILL_TABLE_HEADER}\n${rows.join("\n")}`);
  return figures;
}

/**
 * Where each request stops extending the one before it on the wire (both read as chat messages, so either wire
 * compares alike): the first message that differs, as it was and as it is now. A break is where a provider's
 * prefix cache stops reading.
 */
export function prefixBreaks(requests: readonly MockRequest[]) {
  const breaks: { request: number; turn: number; atMessage: number; was: string; now: string }[] = [];
  requests.forEach((r, i) => {
    const previous = requests[i - 1];
    if (!previous) return;
    const at = previous.messages.findIndex((m, k) => JSON.stringify(m) !== JSON.stringify(r.messages[k]));
    if (at < 0) return;
    const snippet = (m: unknown) => JSON.stringify(m ?? null).slice(0, 160);
    breaks.push({
      request: i,
      turn: r.turn,
      atMessage: at,
      was: snippet(previous.messages[at]),
      now: snippet(r.messages[at]),
    });
  });
  return breaks;
}

/** What the host sent on the wire, for the report: path, protocol headers, body fields, cache breakpoints. */
export function requestShape(request: MockRequest | undefined) {
  if (!request) return undefined;
  const h = request.headers ?? {};
  const marked = (blocks: unknown): number =>
    Array.isArray(blocks) ? blocks.filter((b) => (b as { cache_control?: unknown })?.cache_control).length : 0;
  const messages = Array.isArray(request.body.messages) ? (request.body.messages as { content?: unknown }[]) : [];
  return {
    path: request.path,
    headers: Object.fromEntries(
      ["anthropic-version", "anthropic-beta", "user-agent", "x-stainless-lang"].flatMap((k) =>
        h[k] ? [[k, h[k]]] : [],
      ),
    ),
    bodyKeys: Object.keys(request.body).sort(),
    cacheBreakpoints: {
      tools: marked(request.body.tools),
      system: marked(request.body.system),
      messages: messages.reduce((s, m) => s + marked(m.content), 0),
    },
  };
}

function wireSessionScenario(agent: WireAgent): HostScenario {
  const name = `wire-session-${agent.agentId.replace(/^wire-/, "")}`;
  return {
    name,
    lines: ["2026.9.6"],
    engines: ["context-ledger", "legacy"],
    agentId: agent.agentId,
    async run(session) {
      const figures = await measureWireSession(session, agent, name);
      // Every request of the agent went over its wire, and every turn reached the model (a tool call, then the answer).
      expect(figures.otherWireRequests).toEqual([]);
      expect(figures.bill.requests).toBeGreaterThanOrEqual(2 * WIRE_SESSION.turns);
      if (session.engineId !== "context-ledger") return;
      expect(figures.perTurn.map((t) => (t.answered ? "model" : t.seen))).toEqual(figures.perTurn.map(() => "model"));
      expect(figures.bill.rejected).toEqual([]);
      // Measured 2026-11-26: 62-66% of prompt tokens read from the cache on both wires; input cost 0.31-0.66x legacy's
      // on Anthropic, 0.23-0.31x on Responses (docs/host-lines.md, Provider wires). Legacy's own cost varies by run
      // (its host-started compactions: $0.38-0.70 on Anthropic), so the bound is legacy's cost itself.
      expect(figures.bill.cachedShare).toBeGreaterThanOrEqual(0.6);
      const legacy = await readFigures(name, session.version, "legacy");
      // legacy runs first in the line file; a run filtered to context-ledger alone has no bill to compare with.
      if (legacy) expect(figures.bill.inputCostUsd).toBeLessThan((legacy.bill as WireBill).inputCostUsd);
    },
  };
}

export const wireSessionAnthropic = wireSessionScenario(WIRE_AGENTS[0]!);
export const wireSessionResponses = wireSessionScenario(WIRE_AGENTS[1]!);
