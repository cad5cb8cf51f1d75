/**
 * The opt-in whole `exec` output (`offload.fullExecOutput`), as a user meets it on every line: a
 * 1 MB and a 20 MB output, five times and a hundred times what `exec` itself keeps, each printed in
 * one turn and fetched in the next, come back byte-exact through `ledger_fetch` at three places each
 * (the first 10 lines, 10 lines around 60%, the last 10), the stubs say the whole output is stored,
 * the operator's `context-ledger artifact fetch --raw` prints the bytes the command wrote, and no
 * tee file is left behind. One session of the shared gateway's opt-in agent: no gateway more per line.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, promises as fsp } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { NODE_BIN_DIR } from "../host-install.js";
import type { MockReply, MockRequest } from "../mock-model.js";
import { hasToolResultInCurrentTurn } from "../mock-scripts.js";
import { textOfMessage } from "../mock-wire.js";
import { engineTurnSettled, waitForEvents } from "../settle.js";
import { approvePendingPairings, fetchAnswerText, numberedLine } from "./fetch-back.js";
import { FULL_EXEC_AGENT, type HostScenario, type ScenarioSession } from "./scenario.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");

/** The two outputs: lines of 60 chars (numbered, varied). */
const OUTPUTS = [
  { name: "1mb", lines: 17_000 },
  { name: "20mb", lines: 340_000 },
] as const;
const RANGE = 10;

async function writeNumbered(file: string, lines: number): Promise<string> {
  const hash = createHash("sha256");
  const out = createWriteStream(file);
  for (let n = 1; n <= lines; n += 1_000) {
    let chunk = "";
    for (let k = n; k < Math.min(n + 1_000, lines + 1); k++) chunk += `${numberedLine(k)}\n`;
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return hash.digest("hex");
}

function toolTexts(request: MockRequest): string[] {
  return request.messages.filter((m) => (m as { role?: unknown }).role === "tool").map((m) => textOfMessage(m));
}

const STUB_HANDLE = /\[context-ledger artifact (ledger:v1:sha256:[0-9a-f]{64})\]/g;

/** The handles the prompt's stubs show, in order. */
function handlesShown(request: MockRequest): string[] {
  return [...new Set(toolTexts(request).flatMap((t) => [...t.matchAll(STUB_HANDLE)].map((m) => m[1] as string)))];
}

/** The three line ranges fetched of an output of `lines` lines: first, around 60%, last. */
function rangesOf(lines: number): Array<{ from: number; to: number }> {
  const mid = Math.floor(lines * 0.6);
  return [
    { from: 1, to: RANGE },
    { from: mid, to: mid + RANGE - 1 },
    { from: lines - RANGE + 1, to: lines },
  ];
}

/** `context-ledger artifact fetch HANDLE --raw` of the built CLI: the bytes it printed, hashed. */
export function cliFetchSha(
  stateDir: string,
  handle: string,
  agentId: string = FULL_EXEC_AGENT,
): Promise<{ code: number | null; sha: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      path.join(NODE_BIN_DIR, "node"),
      [path.join(REPO, "dist/src/cli/main.js"), "artifact", "fetch", handle, "--raw", "--agent", agentId],
      { env: { ...process.env, OPENCLAW_STATE_DIR: stateDir }, stdio: ["ignore", "pipe", "inherit"] },
    );
    const hash = createHash("sha256");
    let bytes = 0;
    child.stdout.on("data", (c: Buffer) => {
      hash.update(c);
      bytes += c.length;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, sha: hash.digest("hex"), bytes }));
  });
}

async function runFullExecOutput(session: ScenarioSession): Promise<void> {
  const files = await Promise.all(
    OUTPUTS.map(async (o) => {
      const file = path.join(session.env.root, `full-exec-${o.name}.txt`);
      return { ...o, file, sha: await writeNumbered(file, o.lines) };
    }),
  );
  // Each output is printed in one turn and fetched in the next: the prompt of the fetch turn shows its stub.
  const fetchTurn = new Map<number, MockRequest>();
  session.setScript((request: MockRequest): MockReply => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    const text = request.userText;
    if (hasToolResultInCurrentTurn(request.messages)) return { text: `Done with: ${text.slice(0, 40)}` };
    for (const [i, f] of files.entries()) {
      if (text.includes(`Turn ${2 * i + 1}:`))
        return { toolCalls: [{ name: "exec", args: { command: `cat ${f.file}` } }] };
      if (!text.includes(`Turn ${2 * i + 2}:`)) continue;
      fetchTurn.set(i, request);
      const handle = handlesShown(request).at(-1);
      if (!handle) return { text: "No handle in my prompt." };
      const direct = request.toolNames.includes("ledger_fetch");
      return {
        toolCalls: rangesOf(f.lines).map((r) => {
          const args = { handle, lines: `${r.from}-${r.to}` };
          return direct ? { name: "ledger_fetch", args } : { name: "tool_call", args: { id: "ledger_fetch", args } };
        }),
      };
    }
    return { text: `A plain answer to: ${text.slice(0, 40)}` };
  });

  const send = async (message: string): Promise<MockRequest[]> => {
    const before = (await session.pluginEvents()).length;
    const requestsBefore = session.requests().length;
    await session.chatSend(message, 180_000);
    await waitForEvents(async () => (await session.pluginEvents()).slice(before), engineTurnSettled, {
      timeoutMs: 60_000,
    });
    return session.requests().slice(requestsBefore);
  };
  const pairing = session.version === "2026.9.6" ? undefined : approvePendingPairings(session.env);
  try {
    const shown: string[] = [];
    for (const [i, f] of files.entries()) {
      await send(`Turn ${2 * i + 1}: print the ${f.name} file with exec.`);
      const turn = await send(`Turn ${2 * i + 2}: show me its first, middle and last lines.`);
      const asked = fetchTurn.get(i);
      expect(asked, `the fetch turn of ${f.name} reached the model`).toBeDefined();
      const stub = toolTexts(asked as MockRequest).findLast((t) => t.includes("[context-ledger artifact ")) ?? "";
      expect(stub, `the stub of ${f.name}`).toContain(
        `Full output stored losslessly under this handle: ${(f.lines * 60).toLocaleString("en-US")} chars`,
      );
      shown.push(handlesShown(asked as MockRequest).at(-1) as string);

      // Three ranges, byte-exact, in the order asked.
      const answered = turn.find((r) => hasToolResultInCurrentTurn(r.messages));
      expect(answered, `a request carrying the fetch results of ${f.name}`).toBeDefined();
      const answers = toolTexts(answered as MockRequest)
        .slice(-3)
        .map((t) => fetchAnswerText(t).split("\n"));
      for (const [k, r] of rangesOf(f.lines).entries()) {
        expect(answers[k]?.[0], `${f.name} lines ${r.from}-${r.to}`).toMatch(/^\[context-ledger fetch /);
        expect(answers[k]?.slice(1, 1 + RANGE), `${f.name} lines ${r.from}-${r.to}`).toEqual(
          Array.from({ length: RANGE }, (_, j) => numberedLine(r.from + j)),
        );
      }
    }

    const events = await session.pluginEvents();
    expect(events.filter((e) => e.op === "full-exec:wrapped").length, "both exec calls were wrapped").toBe(2);
    expect(
      events.filter((e) => e.op === "capture" && e.source === "exec-tee").map((e) => e.bytes),
      "both outputs were stored whole from their tee files",
    ).toEqual(files.map((f) => f.lines * 60));

    // The operator's CLI prints the very bytes the command wrote.
    for (const [i, f] of files.entries()) {
      const got = await cliFetchSha(session.env.stateDir, shown[i] as string);
      expect({ code: got.code, bytes: got.bytes, sha: got.sha }, `artifact fetch of ${f.name}`).toEqual({
        code: 0,
        bytes: f.lines * 60,
        sha: f.sha,
      });
    }
    const left = await fsp.readdir(path.join(session.env.stateDir, "context-ledger", "exec-tee")).catch(() => []);
    expect(left, "no tee file left behind").toEqual([]);
  } finally {
    await pairing?.stop();
    await Promise.all(files.map((f) => fsp.rm(f.file, { force: true })));
  }
}

/** Registered for the line files: every line, the opt-in agent of the shared gateway. */
export const fullExecOutput: HostScenario = {
  name: "full-exec-output",
  lines: ["2026.4.24", "2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"],
  engines: ["context-ledger"],
  agentId: FULL_EXEC_AGENT,
  run: runFullExecOutput,
};
