/**
 * The conversation stays as written on 2026.4.24, turn by turn, driven the way that host drives an engine: its own
 * session manager opens the JSONL transcript for each run and appends the turn's messages, its own
 * `rewriteTranscriptEntriesInSessionManager` carries out maintain()'s rewrites, and its own `readSessionMessages` (what
 * `chat.history` lists) reads the file back after each turn's post-turn work. The precheck's load is the session
 * manager's own `buildSessionContext`.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../../src/host/messages.js";
import { loadedTokens } from "../../src/maintenance/host-load.js";
import { PAYDOWN_TARGET_SHARE } from "../../src/maintenance/paydown.js";
import { commandOutput } from "../cli/cli-fixtures.js";
import { ensureHost, RESET_LOOP_HOST } from "../host/host-install.js";
import { assistant, call, createTestEngine, result, user } from "../support/engine-harness.js";
import { hostFunction } from "../support/host-dist.js";
import { loadHostSessionManager, type HostSessionManager } from "../support/host-session-manager.js";
import { useTempDir } from "../support/temp-dir.js";

type Rewrite = (p: { sessionManager: unknown; replacements: unknown[] }) => unknown;
type ReadMessages = (sessionId: string, storePath: string | undefined, sessionFile: string) => unknown[];
type OpenSession = Awaited<ReturnType<typeof loadHostSessionManager>>;
type LiveSession = HostSessionManager & { appendMessage(message: unknown): string };

/** 2026.4.24 keeps this much of an exec output in the result's text (the whole of it in `details.aggregated`). */
const HOST_TEXT_CHARS = 16_000;
const WINDOW = 32_000;
/** What 2026.4.24's precheck admits of a 32,000 window, in chars / 4 before its 1.2 margin. */
const ADMITTED = 10_000;

let open: OpenSession;
let rewrite: Rewrite;
let readSessionMessages: ReadMessages;

beforeAll(async () => {
  const host = await ensureHost(RESET_LOOP_HOST);
  const dist = path.join(host.packageDir, "dist");
  open = await loadHostSessionManager();
  const rw = await hostFunction<Rewrite>(dist, "transcript-rewrite", "rewriteTranscriptEntriesInSessionManager");
  const rd = await hostFunction<ReadMessages>(dist, "session-utils.fs", "readSessionMessages");
  if (!rw || !rd)
    throw new Error(`Expected the 2026.4.24 dist at ${dist} to define the rewrite and the history reader`);
  rewrite = rw;
  readSessionMessages = rd;
}, 300_000);

/** Runs `turns` tool turns of the workload through one engine, as 2026.4.24 does, and reads the history after each. */
async function runTurns(dir: string, workload: { turns: number; outputChars: number; answerChars: number }) {
  const t = await createTestEngine({}, "2026.4");
  const sessionId = "5e551011-0000-4000-8000-000000000424";
  const file = path.join(dir, `${sessionId}.jsonl`);
  await writeFile(
    file,
    `${JSON.stringify({ type: "session", version: 3, id: sessionId, timestamp: new Date(0).toISOString(), cwd: dir })}\n`,
  );
  const s = { sessionId, sessionKey: "agent:main:answers-424", sessionFile: file };
  const written: { user: string; answer: string }[] = [];
  const perTurn: { loadedBefore: number; loadedAfter: number; shown: string[]; users: string[] }[] = [];
  for (let n = 1; n <= workload.turns; n++) {
    const sm = open.open(file, dir, dir) as LiveSession;
    const maintain = () =>
      t.engine.maintain({
        ...s,
        runtimeContext: {
          rewriteTranscriptEntries: async (r: { replacements: unknown[] }) =>
            rewrite({ sessionManager: sm, replacements: r.replacements }),
        },
      });
    await maintain();
    const loaded = () => sm.buildSessionContext().messages;
    const loadedBefore = loaded().reduce((sum, m) => sum + loadedTokens(m), 0);
    const pre = loaded().length;
    const question = `Turn ${n}: run the nightly report again and summarize what changed.`;
    sm.appendMessage(user(question));
    await t.engine.assemble({ ...s, messages: loaded(), tokenBudget: WINDOW, prompt: question });
    const output = commandOutput(`out${n}`, workload.outputChars);
    sm.appendMessage(call(`call_${n}`, "exec", { command: `report --night ${n}` }));
    sm.appendMessage(
      result(`call_${n}`, "exec", output.slice(0, HOST_TEXT_CHARS), { exitCode: 0, aggregated: output }),
    );
    await t.engine.assemble({ ...s, messages: loaded(), tokenBudget: WINDOW });
    const answer = `Answer ${n}: ${commandOutput(`answer${n}`, workload.answerChars)}`;
    sm.appendMessage(assistant(answer));
    written.push({ user: question, answer });
    await t.engine.afterTurn({ ...s, messages: loaded(), prePromptMessageCount: pre, tokenBudget: WINDOW });
    await maintain();
    const history = readSessionMessages(sessionId, undefined, file);
    const reopened = open.open(file, dir, dir).buildSessionContext().messages;
    perTurn.push({
      loadedBefore,
      loadedAfter: reopened.reduce((sum, m) => sum + loadedTokens(m), 0),
      shown: history
        .filter((m) => (m as { role?: unknown }).role === "assistant")
        .map(textOf)
        .filter(Boolean),
      users: history.filter((m) => (m as { role?: unknown }).role === "user").map(textOf),
    });
  }
  return { t, file, written, perTurn };
}

describe("2026.4.24: the history shows every answer as written, and the host loads less", () => {
  const tmp = useTempDir("ledger-answers-424-");

  it.each([
    { turns: 6, outputChars: 150_000, answerChars: 12_000 },
    { turns: 20, outputChars: 40_000, answerChars: 12_000 },
  ])(
    "$turns turns of $outputChars-char outputs and $answerChars-char answers at 32,000",
    async (workload) => {
      const { t, file, written, perTurn } = await runTurns(tmp(), workload);
      try {
        const target = Math.floor(ADMITTED * PAYDOWN_TARGET_SHARE);
        for (const [i, turn] of perTurn.entries()) {
          const upTo = written.slice(0, i + 1);
          // After the turn's post-turn work: each answer so far once, byte for byte what the model wrote, and nothing
          // else the assistant said (no stub in place of an answer, no answer twice).
          expect(turn.shown, `turn ${i + 1}`).toEqual(upTo.map((w) => w.answer));
          expect(turn.users, `turn ${i + 1}`).toEqual(upTo.map((w) => w.user));
          // What the host loads for the next turn's precheck stays under the paydown's share of what it admits.
          expect(turn.loadedAfter, `turn ${i + 1}`).toBeLessThanOrEqual(target);
        }
        // The load was paid down by compaction entries in the host's format, each summary naming its checkpoint.
        const compactions = (await readFile(file, "utf8"))
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type?: string; summary?: string; firstKeptEntryId?: string })
          .filter((e) => e.type === "compaction");
        expect(compactions.length).toBeGreaterThan(0);
        for (const c of compactions) {
          expect(c.summary).toMatch(/ledger:v1:sha256:[0-9a-f]{64}/);
          expect(c.firstKeptEntryId).toBeTypeOf("string");
        }
      } finally {
        await t.cleanup();
      }
    },
    240_000,
  );
});
