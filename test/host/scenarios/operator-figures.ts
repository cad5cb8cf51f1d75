/**
 * The operator's figures agree with each other and with the host's transcript: `status --json`, `view --json`,
 * `/ledger status` in the chat (and the Ledger page, where the line serves it) against the JSONL transcript the host
 * keeps for the session: the user turns are its user messages, the tool outputs offloaded are the distinct stored
 * outputs its stubs cite, the compactions its compaction entries, the debt what it loads over the budget.
 */
import { expect } from "vitest";
import { isGenuineUserMessage } from "../../../src/host/messages.js";
import { loadedTranscriptTokens } from "../../../src/maintenance/debt-after.js";
import { readJsonlTranscript } from "../../../src/maintenance/transcript-jsonl.js";
import { extractJson, runLedgerCli } from "../openclaw-cli.js";
import { pollUntil } from "../settle.js";
import { command } from "./operator.js";
import type { ScenarioSession } from "./scenario.js";
import { jsonlSessionFile } from "./turn-figures.js";

const STUB_HANDLE = /^\[context-ledger artifact (ledger:v1:sha256:[0-9a-f]{64})\]/;

/** What the transcript shows, counted by the test from the host's own file. */
export interface TranscriptFigures {
  userTurns: number;
  stubbedOutputs: number;
  /** The handles the transcript's stubs cite. */
  stubHandles: Set<string>;
  compactions: number;
  loadedTokens: number;
}

/** Counts the figures from the session's JSONL transcript (active branch). */
export async function transcriptFigures(session: ScenarioSession): Promise<TranscriptFigures> {
  const file = await jsonlSessionFile(session);
  if (!file) throw new Error(`Expected a JSONL transcript for ${session.sessionKey} on ${session.version}, got none`);
  const { branch } = await readJsonlTranscript(file);
  const messages = branch.flatMap((e) => (e.type === "message" && e.fields.message ? [e.fields.message] : []));
  const handles = new Set<string>();
  for (const m of messages as { role?: unknown; content?: unknown }[]) {
    if (m.role !== "toolResult" || !Array.isArray(m.content)) continue;
    for (const b of m.content as { text?: unknown }[]) {
      const hit = typeof b.text === "string" ? STUB_HANDLE.exec(b.text) : null;
      if (hit?.[1]) handles.add(hit[1]);
    }
  }
  return {
    userTurns: messages.filter(isGenuineUserMessage).length,
    stubbedOutputs: handles.size,
    stubHandles: handles,
    compactions: branch.filter((e) => e.type === "compaction").length,
    loadedTokens: (await loadedTranscriptTokens({ sessionFile: file })) ?? -1,
  };
}

interface StatusSession {
  turns: number;
  compactions: number;
  debtTokens: number | null;
  promptBudget: number | null;
  stored: { toolOutputs: number };
}

async function statusOf(session: ScenarioSession): Promise<StatusSession> {
  const run = await runLedgerCli(session.env, ["status", "--session", session.sessionKey, "--json"], {
    timeoutMs: 120_000,
  });
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  const doc = extractJson(run.stdout) as { agents: { sessions: StatusSession[] }[] };
  const found = doc.agents.flatMap((a) => a.sessions)[0];
  if (!found) throw new Error(`Expected status of ${session.sessionKey}, got ${run.stdout.slice(0, 1000)}`);
  return found;
}

/**
 * The handles of tool outputs stored from this session (`artifact list --session`): an output identical to one
 * another session stored first is that session's (the store keeps one copy, with its first origin).
 */
async function storedFromSession(session: ScenarioSession): Promise<Set<string>> {
  const run = await runLedgerCli(
    session.env,
    ["artifact", "list", "--session", session.sessionKey, "--limit", "1000000", "--json"],
    {
      timeoutMs: 120_000,
    },
  );
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  const listed = extractJson(run.stdout) as { artifacts?: { handle: string; kind?: string }[] };
  return new Set((listed.artifacts ?? []).filter((a) => a.kind === "tool-output").map((a) => a.handle));
}

/**
 * Checks every surface against the transcript. Call after the session's last turn, before anything else writes to
 * it (a `/ledger` command is itself a user message in some lines' transcripts: it is sent last).
 */
export async function expectFiguresAgree(session: ScenarioSession): Promise<TranscriptFigures> {
  const transcript = await transcriptFigures(session);
  // The turn's last maintain() records the debt after paydown behind the reply: wait for it to reach the state file.
  const status = await pollUntil(
    () => statusOf(session),
    (s) => s.promptBudget !== null && s.debtTokens === Math.max(0, transcript.loadedTokens - s.promptBudget),
    { timeoutMs: 20_000, intervalMs: 500 },
  );
  const budget = status.promptBudget ?? 0;
  // Outputs offloaded: the transcript's stubbed outputs that this session stored (see storedFromSession).
  const storedHere = await storedFromSession(session);
  const offloadedHere = [...transcript.stubHandles].filter((h) => storedHere.has(h)).length;
  const debtAfter = Math.max(0, transcript.loadedTokens - budget);
  expect(
    {
      turns: status.turns,
      offloaded: status.stored.toolOutputs,
      compactions: status.compactions,
      debt: status.debtTokens,
    },
    "status --json against the transcript",
  ).toEqual({
    turns: transcript.userTurns,
    offloaded: offloadedHere,
    compactions: transcript.compactions,
    debt: debtAfter,
  });

  const view = await runLedgerCli(session.env, ["view", "--session", session.sessionKey, "--json"], {
    timeoutMs: 120_000,
  });
  expect(view.code, view.stderr.slice(-2000)).toBe(0);
  const figures = (
    extractJson(view.stdout) as {
      figures: { userTurns: number; compactions: number; debtAfterPaydown: number; stored: { toolOutputs: number } };
    }
  ).figures;
  expect(
    {
      turns: figures.userTurns,
      offloaded: figures.stored.toolOutputs,
      compactions: figures.compactions,
      debt: figures.debtAfterPaydown,
    },
    "view --json against the transcript",
  ).toEqual({
    turns: transcript.userTurns,
    offloaded: offloadedHere,
    compactions: transcript.compactions,
    debt: debtAfter,
  });

  const chat = await command(session, "/ledger status");
  const n = (re: RegExp): number | null => {
    const hit = re.exec(chat);
    return hit?.[1] ? Number(hit[1].replace(/,/g, "")) : null;
  };
  expect(
    {
      turns: n(/: ([\d,]+) turns?,/),
      offloaded: n(/turns?, ([\d,]+) tool outputs? offloaded/),
      compactions: n(/([\d,]+) compactions? in the transcript/),
      debt: n(/Debt ([\d,]+) tokens after the turn's paydown/),
    },
    `/ledger status against the transcript:\n${chat}`,
  ).toEqual({
    turns: transcript.userTurns,
    offloaded: offloadedHere,
    compactions: transcript.compactions,
    debt: debtAfter,
  });
  console.log(
    `[figures] ${session.version}: ${transcript.userTurns} turns, ${offloadedHere} outputs offloaded (${transcript.stubbedOutputs} stubbed), ${transcript.compactions} compactions, debt ${debtAfter} after paydown (loaded ${transcript.loadedTokens} of budget ${budget}); /ledger status:\n${chat}`,
  );
  return transcript;
}
