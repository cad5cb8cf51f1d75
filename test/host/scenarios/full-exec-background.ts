/**
 * The opt-in whole `exec` output of a command the host sends to the background: on an agent whose
 * `exec` is backgrounded after 1 s (`tools.exec.backgroundMs`, the cheap honest stand-in for the
 * default 10 s), a command prints about 5 MB over about 4 s. The call returns while it runs; when it
 * ends, the whole output is stored from its tee file as any other call's (byte-exact through the
 * operator's `artifact fetch --raw`), and no tee file is left behind.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { MockReply, MockRequest } from "../mock-model.js";
import { hasToolResultInCurrentTurn } from "../mock-scripts.js";
import { textOfMessage } from "../mock-wire.js";
import { FULL_EXEC_BG_AGENT, type HostScenario, type ScenarioSession } from "./scenario.js";
import { cliFetchSha } from "./full-exec-output.js";

const CHUNKS = 40;
const CHUNK_BYTES = 131_072;
/** About 5 MB over about 4 s: 40 chunks of 128 KiB of `b`, each ended by its number, 0.1 s apart. */
const COMMAND = `for i in $(seq 1 ${CHUNKS}); do head -c ${CHUNK_BYTES} /dev/zero | tr '\\000' 'b'; echo " $i"; sleep 0.1; done`;

/** The bytes the command writes. */
function expectedOutput(): Buffer {
  const parts: Buffer[] = [];
  for (let i = 1; i <= CHUNKS; i++) parts.push(Buffer.alloc(CHUNK_BYTES, "b"), Buffer.from(` ${i}\n`));
  return Buffer.concat(parts);
}

async function until<T>(what: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    const got = await what();
    if (got !== undefined) return got;
  }
  return undefined;
}

async function runFullExecBackground(session: ScenarioSession): Promise<void> {
  const expected = expectedOutput();
  let toolText: string | undefined;
  session.setScript((request: MockRequest): MockReply => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    if (hasToolResultInCurrentTurn(request.messages)) {
      const tools = request.messages.filter((m) => (m as { role?: unknown }).role === "tool");
      toolText ??= textOfMessage(tools.at(-1));
      return { text: "It runs in the background." };
    }
    if (request.userText.includes("Turn 1:")) return { toolCalls: [{ name: "exec", args: { command: COMMAND } }] };
    // The host's own turn when the command ends ("[OpenClaw exec completion]", or its system event).
    return { text: "Noted." };
  });
  const before = (await session.pluginEvents()).length;
  const started = Date.now();
  await session.chatSend("Turn 1: run the slow printer with exec.", 180_000);
  const returnedMs = Date.now() - started;

  const capture = await until(async () => {
    const events = (await session.pluginEvents()).slice(before);
    return events.find((e) => e.op === "capture" && e.source === "exec-tee");
  }, 120_000);
  const events = (await session.pluginEvents()).slice(before);
  expect(events.filter((e) => e.op === "full-exec:wrapped").length, "the exec call was wrapped").toBe(1);
  expect(toolText, "the call returned to the model").toBeDefined();
  // The host's copy at that moment: the command still ran (its last chunk was not in it).
  expect(toolText ?? "", `the call returned while the command ran (${returnedMs} ms)`).not.toContain(` ${CHUNKS}\n`);
  expect(capture, "the whole output was stored from the tee file when the command ended").toMatchObject({
    source: "exec-tee",
    background: true,
    bytes: expected.length,
  });
  const got = await cliFetchSha(session.env.stateDir, String(capture?.handle), FULL_EXEC_BG_AGENT);
  expect(got).toEqual({ code: 0, bytes: expected.length, sha: createHash("sha256").update(expected).digest("hex") });
  const teeDir = path.join(session.env.stateDir, "context-ledger", "exec-tee");
  const left = await until(async () => {
    const names = await fsp.readdir(teeDir).catch(() => []);
    return names.length === 0 ? names : undefined;
  }, 10_000);
  expect(left ?? (await fsp.readdir(teeDir).catch(() => [])), "no tee file left behind").toEqual([]);
}

/** Registered for the line files: every line, the background opt-in agent of the shared gateway. */
export const fullExecBackground: HostScenario = {
  name: "full-exec-background",
  lines: ["2026.4.24", "2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"],
  engines: ["context-ledger"],
  agentId: FULL_EXEC_BG_AGENT,
  run: runFullExecBackground,
};
