/**
 * A 1 MB `exec` output, as a user meets it. `exec` keeps the last 200,000 chars of any
 * output on every line (`DEFAULT_MAX_OUTPUT`), so with context-ledger's defaults the store
 * must hold at least what the host kept, say plainly that it is not the whole output, and
 * give the tail back byte-exact through `ledger_fetch`. Legacy runs the same turn as the
 * control: every line of the tool text its model saw must be in context-ledger's stored
 * copy (installing the plugin never shows less than the host alone).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { createArtifactStore } from "../../../src/artifacts/index.js";
import { parseHostCopy } from "../../../src/results/host-copy.js";
import { artifactRoot, LEDGER_DIR_NAME } from "../../../src/state/paths.js";
import type { MockReply, MockRequest } from "../mock-model.js";
import { hasToolResultInCurrentTurn } from "../mock-scripts.js";
import { textOfMessage } from "../mock-wire.js";
import { approvePendingPairings, fetchAnswerText, handleShownIn, numberedLine } from "./fetch-back.js";
import { LEGACY_CONTROL_LINES, type HostScenario, type ScenarioSession } from "./scenario.js";
import { engineTurnSettled, waitForEvents } from "../settle.js";

/** Lines of the printed file: 17,000 × 60 chars = 1,020,000 chars. */
const BIG_LINES = 17_000;
/** What `exec` keeps of an output on every line from 2026.4.24 to 2026.9.6. */
const EXEC_KEEPS = 200_000;
/** Lines fetched back from the end. */
const TAIL_LINES = 10;

/** The tool text legacy's model saw, by host line (legacy's gateway runs first). */
const legacySaw = new Map<string, string>();

function bigFile(): string {
  let s = "";
  for (let n = 1; n <= BIG_LINES; n++) s += `${numberedLine(n)}\n`;
  return s;
}

function toolTexts(request: MockRequest): string[] {
  return request.messages.filter((m) => (m as { role?: unknown }).role === "tool").map((m) => textOfMessage(m));
}

async function sendSettled(session: ScenarioSession, message: string): Promise<void> {
  if (session.engineId !== "context-ledger") {
    await session.chatSend(message);
    return;
  }
  const before = (await session.pluginEvents()).length;
  await session.chatSend(message);
  await waitForEvents(async () => (await session.pluginEvents()).slice(before), engineTurnSettled, {
    timeoutMs: 30_000,
  });
}

async function runBigOutput(session: ScenarioSession): Promise<void> {
  const file = path.join(session.env.root, `big-${session.sessionKey.replace(/[^a-z0-9]/gi, "-")}.txt`);
  const content = bigFile();
  expect(content.length).toBeGreaterThan(1_000_000);
  await fsp.writeFile(file, content);
  const lines = content.trimEnd().split("\n");

  let shown: { handle: string; stub: string } | undefined;
  session.setScript((request: MockRequest): MockReply => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    const text = request.userText;
    if (hasToolResultInCurrentTurn(request.messages)) return { text: `Done with: ${text.slice(0, 40)}` };
    if (text.includes("Turn 1:")) return { toolCalls: [{ name: "exec", args: { command: `cat ${file}` } }] };
    if (text.includes("Turn 2:")) {
      shown = handleShownIn(request);
      if (!shown) return { text: "No handle in my prompt." };
      const args = { handle: shown.handle, selector: { kind: "tail", lines: TAIL_LINES } };
      if (request.toolNames.includes("ledger_fetch")) return { toolCalls: [{ name: "ledger_fetch", args }] };
      return { toolCalls: [{ name: "tool_call", args: { id: "ledger_fetch", args } }] };
    }
    return { text: `A plain answer to: ${text.slice(0, 40)}` };
  });

  const pairing = session.version === "2026.9.6" ? undefined : approvePendingPairings(session.env);
  try {
    await sendSettled(session, "Turn 1: print the big file with exec.");
    const afterTool = session.requests().find((r) => hasToolResultInCurrentTurn(r.messages));
    expect(afterTool, "a request carrying the exec result").toBeDefined();
    const seen = toolTexts(afterTool as MockRequest).at(-1) ?? "";
    if (session.engineId === "legacy") {
      legacySaw.set(session.version, seen);
      return;
    }
    const before = session.requests().length;
    await sendSettled(session, "Turn 2: show me the last lines of that output.");
    const turn2 = session.requests().slice(before);

    expect(shown, "the turn-2 prompt shows a stub with a handle").toBeDefined();
    const { handle, stub } = shown as { handle: string; stub: string };
    // exec kept the last 200,000 chars: the stub must not claim the whole output.
    expect(stub, stub).toMatch(/NOT the whole output \(.*200,000 chars/);

    // The store holds at least everything the host kept: the output's last 200,000 chars.
    const store = createArtifactStore({ root: artifactRoot(path.join(session.env.stateDir, LEDGER_DIR_NAME), "main") });
    const stored = (await store.read(handle)).toString("utf8");
    const kept = content.trimEnd().slice(-(EXEC_KEEPS - 1_000));
    expect(stored.length).toBeGreaterThanOrEqual(EXEC_KEEPS - 1);
    expect(stored.trimEnd().endsWith(kept), "the stored copy ends with the output's kept tail").toBe(true);

    // The tail comes back byte-exact through ledger_fetch.
    const answered = turn2.find((r) => hasToolResultInCurrentTurn(r.messages));
    expect(answered, "a request carrying the fetch result").toBeDefined();
    const answer = fetchAnswerText(toolTexts(answered as MockRequest).at(-1) ?? "").split("\n");
    expect(answer[0]).toMatch(/^\[context-ledger fetch /);
    expect(answer.slice(1)).toEqual(lines.slice(-TAIL_LINES));

    // Never less than the host alone: every line legacy's model saw of this output is in the stored copy.
    const control = legacySaw.get(session.version);
    if (control !== undefined) {
      // The host's own truncation notice is not output: compare what it kept of the output.
      const parts = parseHostCopy(control);
      const legacyLines = `${parts.head}\n${parts.tail ?? ""}`.split("\n").filter((l) => /^line \d{4,5} sum=/.test(l));
      expect(legacyLines.length, "legacy saw some of the output").toBeGreaterThan(0);
      const missing = legacyLines.filter((l) => !stored.includes(l));
      expect(missing.slice(0, 3)).toEqual([]);
    }
  } finally {
    await pairing?.stop();
  }
}

/**
 * Registered for the line files: every line; legacy first as the control on 2026.4.24 and 2026.9.6 (every line in
 * `npm run test:controls`).
 */
export const bigOutput: HostScenario = {
  name: "big-output",
  lines: ["2026.4.24", "2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"],
  engines: ["legacy", "context-ledger"],
  legacyLines: LEGACY_CONTROL_LINES,
  run: runBigOutput,
};
