/**
 * Fetch-back: the product's central promise as a user meets it. Turn 1 an `exec` prints a
 * 150,000-char file of 2,500 numbered lines; turn 2 is a text turn; in turn 3 the model calls
 * `ledger_fetch` for lines 1200-1210 with the handle its prompt shows (read from the request
 * the mock received), through `tool_call` when the host hides plugin tools behind Tool Search
 * (2026.9.x) and directly where it is offered. The 11 lines must come back byte-exact in the
 * tool result the model receives.
 */
import { engineTurnSettled, waitForEvents } from "../settle.js";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { MockRequest, MockReply } from "../mock-model.js";
import { textOfMessage } from "../mock-wire.js";
import { hasToolResultInCurrentTurn } from "../mock-scripts.js";
import type { HostEnv } from "../host-env.js";
import type { HostScenario, ScenarioSession } from "./scenario.js";

/**
 * 2026.5.28 (and 2026.6.11) never approve a device's scope upgrade silently (its gateway
 * `message-handler`: `silent: reason === "scope-upgrade" ? false : ...`): the CLI device
 * the rig pairs read-only during start-up then waits forever for `chat.send`'s write
 * scope, and `openclaw devices approve` cannot help (each of its own connects files a new
 * request that supersedes the one it approves). Until the shared rig handles it, this
 * grants the operator scopes in the isolated state dir's `devices/paired.json` (the
 * gateway reads it on every connect) whenever a scope upgrade is pending.
 */
export function approvePendingPairings(env: HostEnv): { stop(): Promise<void> } {
  const dir = path.join(env.stateDir, "devices");
  const want = ["operator.read", "operator.write", "operator.pairing", "operator.approvals", "operator.admin"];
  const union = (a: unknown): string[] => [...new Set([...(Array.isArray(a) ? (a as string[]) : []), ...want])];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const pending = JSON.parse(await fsp.readFile(path.join(dir, "pending.json"), "utf8")) as Record<
          string,
          unknown
        >;
        if (Object.keys(pending).length > 0) {
          const paired = JSON.parse(await fsp.readFile(path.join(dir, "paired.json"), "utf8")) as Record<
            string,
            Record<string, unknown>
          >;
          for (const device of Object.values(paired)) {
            device.scopes = union(device.scopes);
            device.approvedScopes = union(device.approvedScopes);
            for (const token of Object.values((device.tokens ?? {}) as Record<string, Record<string, unknown>>))
              token.scopes = union(token.scopes);
          }
          await fsp.writeFile(path.join(dir, "paired.json"), JSON.stringify(paired, null, 2), { mode: 0o600 });
          await fsp.writeFile(path.join(dir, "pending.json"), "{}", { mode: 0o600 });
        }
      } catch {
        // No pairing files yet.
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Lines of the printed file. */
export const FILE_LINES = 2_500;
/** Chars per line, newline included: 2,500 × 60 = 150,000 chars. */
const LINE_CHARS = 60;
/** The lines fetched back in turn 3. */
export const FETCH_FROM = 1_200;
export const FETCH_TO = 1_210;

/** Line `n` (1-based) of the file, without its newline: numbered and varied, exactly 59 chars. */
export function numberedLine(n: number): string {
  const head = `line ${String(n).padStart(4, "0")} sum=${((n * 2654435761) % 4294967296).toString(16).padStart(8, "0")} `;
  let body = "";
  for (let k = 0; head.length + body.length < LINE_CHARS - 1; k++)
    body += "abcdefghijklmnopqrstuvwxyz"[(n * 7 + k * 3) % 26];
  return head + body;
}

/** The whole file: 150,000 chars. */
export function numberedFile(): string {
  let s = "";
  for (let n = 1; n <= FILE_LINES; n++) s += `${numberedLine(n)}\n`;
  return s;
}

const HANDLE_IN_STUB = /\[context-ledger artifact (ledger:v1:sha256:[0-9a-f]{64})\]/g;

/** Every tool message text of a request, in order, with its tool_call_id. */
function toolMessages(request: MockRequest): { id: string; text: string }[] {
  return request.messages
    .filter((m) => (m as { role?: unknown }).role === "tool")
    .map((m) => ({ id: String((m as { tool_call_id?: unknown }).tool_call_id ?? ""), text: textOfMessage(m) }));
}

/** The handle the prompt's stub for the turn-1 output shows (the last stub in the first tool message that has one). */
export function handleShownIn(request: MockRequest): { handle: string; stub: string } | undefined {
  for (const m of toolMessages(request)) {
    const hits = [...m.text.matchAll(HANDLE_IN_STUB)];
    const last = hits.at(-1);
    if (last?.[1]) return { handle: last[1], stub: m.text };
  }
  return undefined;
}

/**
 * The fetch answer the model received: the plain tool text when `ledger_fetch` ran directly,
 * or the inner result text of a `tool_call` JSON envelope.
 */
export function fetchAnswerText(toolText: string): string {
  const t = toolText.trim();
  if (!t.startsWith("{")) return toolText;
  const envelope = JSON.parse(t) as { result?: { content?: { type?: string; text?: string }[] } };
  return (envelope.result?.content ?? []).map((c) => (typeof c.text === "string" ? c.text : "")).join("");
}

/** How turn 3 reaches the tool on this host: directly or through Tool Search's `tool_call`. */
export type FetchPath = "direct" | "tool_call";

/** Options for {@link fetchBackScenario}. */
export interface FetchBackOptions {
  /** Force a path; by default `tool_call` when offered and `ledger_fetch` is not, else direct. */
  path?: FetchPath;
}

/** What one run observed (for the report line). */
export interface FetchBackResult {
  path: FetchPath;
  handle: string;
  linesExact: number;
  stub: string;
  answer: string;
  /** The stub said its handle holds the whole output. */
  full: boolean;
}

/** Results of the runs so far, by session key (the test prints them). */
export const fetchBackResults = new Map<string, FetchBackResult>();

/** Sends one message and waits for the engine's post-turn work (2026.4.24 queues a message sent during it). */
async function sendSettled(session: ScenarioSession, message: string): Promise<void> {
  const before = (await session.pluginEvents()).length;
  await session.chatSend(message);
  await waitForEvents(async () => (await session.pluginEvents()).slice(before), engineTurnSettled, {
    timeoutMs: 30_000,
  });
}

/** The fetch-back scenario. */
export function fetchBackScenario(options: FetchBackOptions = {}): HostScenario {
  return {
    name: options.path ? `fetch-back-${options.path.replace("_", "-")}` : "fetch-back",
    lines: ["2026.4.24", "2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"],
    engines: ["context-ledger"],
    run: (session) => runFetchBack(session, options),
  };
}

async function runFetchBack(session: ScenarioSession, options: FetchBackOptions): Promise<void> {
  const file = path.join(session.env.root, `numbered-${session.sessionKey.replace(/[^a-z0-9]/gi, "-")}.txt`);
  const content = numberedFile();
  expect(content.length).toBe(150_000);
  await fsp.writeFile(file, content);
  const expected = content.split("\n").slice(FETCH_FROM - 1, FETCH_TO);

  let shown: { handle: string; stub: string } | undefined;
  let usedPath: FetchPath | undefined;
  const script = (request: MockRequest): MockReply => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    const text = request.userText;
    if (hasToolResultInCurrentTurn(request.messages)) return { text: `Done with: ${text.slice(0, 40)}` };
    if (text.includes("Turn 1:")) return { toolCalls: [{ name: "exec", args: { command: `cat ${file}` } }] };
    if (text.includes("Turn 3:")) {
      shown = handleShownIn(request);
      if (!shown) return { text: "No handle in my prompt." };
      const args = { handle: shown.handle, lines: `${FETCH_FROM}-${FETCH_TO}` };
      const direct = request.toolNames.includes("ledger_fetch");
      usedPath = options.path ?? (direct ? "direct" : "tool_call");
      if (usedPath === "direct") return { toolCalls: [{ name: "ledger_fetch", args }] };
      return { toolCalls: [{ name: "tool_call", args: { id: "ledger_fetch", args } }] };
    }
    return { text: `A plain answer to: ${text.slice(0, 40)}` };
  };
  session.setScript(script);

  // 2026.5.28 and 2026.6.11 at least; it acts only when a scope upgrade is pending.
  const pairing = session.version === "2026.9.6" ? undefined : approvePendingPairings(session.env);
  let turn3: MockRequest[];
  try {
    await sendSettled(session, "Turn 1: print the numbered file with exec.");
    await sendSettled(session, "Turn 2: anything notable so far? Answer briefly.");
    const before = session.requests().length;
    await sendSettled(session, "Turn 3: fetch lines 1200-1210 of that output.");
    turn3 = session.requests().slice(before);
  } finally {
    await pairing?.stop();
  }

  expect(shown, "the turn-3 prompt shows a stub with a handle").toBeDefined();
  const { handle, stub } = shown as { handle: string; stub: string };
  // The stub cites what its handle holds, truly: the whole output, or plainly less.
  const coverage =
    /(Full output stored losslessly under this handle|Stored under this handle): ([\d,]+) chars · ([\d,]+) lines/.exec(
      stub,
    );
  expect(coverage, `a size line in the stub:\n${stub}`).not.toBeNull();
  const [, claim, chars, lines] = coverage as RegExpExecArray;
  const full = claim?.startsWith("Full") === true;
  if (full) {
    // The host's exec trims the output's final newline: 149,999 of the file's 150,000 chars is all of it.
    expect(Number(chars?.replaceAll(",", ""))).toBeGreaterThanOrEqual(content.trimEnd().length);
    expect(Number(lines?.replaceAll(",", ""))).toBeGreaterThanOrEqual(FILE_LINES);
  } else {
    expect(stub).toMatch(/NOT the whole output \(.+\)/);
  }
  expect(usedPath).toBeDefined();
  if (usedPath === "tool_call") expect(turn3[0]?.toolNames).toContain("tool_call");

  // The tool result the model received after its fetch call.
  const after = turn3.find((r) => hasToolResultInCurrentTurn(r.messages));
  expect(after, "a request carrying the fetch result").toBeDefined();
  const last = toolMessages(after as MockRequest).at(-1);
  const answer = fetchAnswerText(last?.text ?? "");
  const body = answer.split("\n");
  expect(body[0]).toMatch(/^\[context-ledger fetch /);
  // The handle's true size in the stub is the artifact's size the fetch reports.
  expect(body[0]).toContain(`of ${chars} chars`);
  const got = body.slice(1);
  const linesExact = expected.filter((line, i) => got[i] === line).length;
  fetchBackResults.set(session.sessionKey, { path: usedPath as FetchPath, handle, linesExact, stub, answer, full });
  expect(got).toEqual(expected);
  expect(linesExact).toBe(FETCH_TO - FETCH_FROM + 1);
}

/** Registered for the line files: the path each host offers (Tool Search's tool_call on 9.x, else direct). */
export const fetchBack: HostScenario = fetchBackScenario();
