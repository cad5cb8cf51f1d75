/**
 * The opt-in whole `exec` output reached in the turn that produced it: the model prints a 1 MB file with
 * `exec` (the host cuts its copy to the last 200,000 chars) and, in the same turn, fetches the output's
 * last 10 lines with `ledger_fetch {toolCallId}` (the exec call's own id), before the host has reported
 * the call to plugins (2026.9.6 fires `after_tool_call` after the turn).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { MockReply, MockRequest } from "../mock-model.js";
import { toolResultsInCurrentTurn } from "../mock-scripts.js";
import { fetchAnswerText, numberedLine } from "./fetch-back.js";
import { FULL_EXEC_AGENT, type HostScenario, type ScenarioSession } from "./scenario.js";

const LINES = 17_000;

/** The id of the newest `exec` call the model made, as the request carries it. */
function execCallId(request: MockRequest): string | undefined {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i] as { role?: unknown; tool_calls?: unknown };
    if (m.role !== "assistant" || !Array.isArray(m.tool_calls)) continue;
    for (const c of m.tool_calls as Array<{ id?: unknown; function?: { name?: unknown } }>)
      if (c.function?.name === "exec" && typeof c.id === "string") return c.id;
  }
  return undefined;
}

async function runFullExecInTurn(session: ScenarioSession): Promise<void> {
  const file = path.join(session.env.root, "full-exec-in-turn.txt");
  let text = "";
  for (let n = 1; n <= LINES; n++) text += `${numberedLine(n)}\n`;
  await fsp.writeFile(file, text);
  let fetchArgs: Record<string, unknown> | undefined;
  session.setScript((request: MockRequest): MockReply => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    const results = toolResultsInCurrentTurn(request.messages);
    if (results.length === 0) return { toolCalls: [{ name: "exec", args: { command: `cat ${file}` } }] };
    if (results.length === 1) {
      const toolCallId = execCallId(request);
      if (!toolCallId) return { text: "No exec call id in my prompt." };
      fetchArgs = { toolCallId, lines: `${LINES - 9}-${LINES}` };
      // 2026.9.6 may offer the tool through Tool Search's `tool_call` only.
      return request.toolNames.includes("ledger_fetch")
        ? { toolCalls: [{ name: "ledger_fetch", args: fetchArgs }] }
        : { toolCalls: [{ name: "tool_call", args: { id: "ledger_fetch", args: fetchArgs } }] };
    }
    return { text: "Those are its last lines." };
  });
  try {
    const before = session.requests().length;
    await session.chatSend("Turn 1: print the 1mb file with exec and show me its last 10 lines.", 180_000);
    const turn = session.requests().slice(before);
    expect(fetchArgs, "the model fetched by the exec call's id").toBeDefined();
    const answered = turn.find((r) => toolResultsInCurrentTurn(r.messages).length === 2);
    expect(answered, "the fetch result came back in the same turn").toBeDefined();
    const answer = fetchAnswerText(toolResultsInCurrentTurn((answered as MockRequest).messages)[1] ?? "");
    expect(answer.split("\n")[0]).toMatch(/^\[context-ledger fetch /);
    expect(answer.split("\n").slice(1, 11)).toEqual(Array.from({ length: 10 }, (_, j) => numberedLine(LINES - 9 + j)));
  } finally {
    await fsp.rm(file, { force: true });
  }
}

/** Registered for 2026.9.6, the opt-in agent of the shared gateway. */
export const fullExecInTurn: HostScenario = {
  name: "full-exec-in-turn",
  lines: ["2026.9.6"],
  engines: ["context-ledger"],
  agentId: FULL_EXEC_AGENT,
  run: runFullExecInTurn,
};
