/**
 * A wrapped `exec` command means, through the host's own exec, what it means plain: commands that
 * signal their own process group, exit codes, stderr, NUL bytes, `set -e`, quote-heavy text. In one
 * turn of the opt-in agent the model runs each command twice: as written (wrapped by the plugin) and
 * with a trailing comment naming `nohup`, which the exec policy reads as "may leave a process
 * running" and passes through unwrapped (the comment changes nothing else). The tool results the
 * model gets back must be the same text, and every wrapped call's output must be stored whole from
 * its tee file. Each command writes to one stream only: plain, the host merges stdout and stderr in
 * the order it reads its two pipes, which is not always the order they were written.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { PluginEvent } from "../logs.js";
import type { MockReply, MockRequest } from "../mock-model.js";
import { hasToolResultInCurrentTurn, toolResultsInCurrentTurn } from "../mock-scripts.js";
import { engineTurnSettled, waitForEvents } from "../settle.js";
import { approvePendingPairings } from "./fetch-back.js";
import { cliFetchSha } from "./full-exec-output.js";
import { FULL_EXEC_AGENT, type HostScenario, type ScenarioSession } from "./scenario.js";

const Q = "'";

/** Commands whose meaning the first wrapper changed, and ones as models send them. */
const COMMANDS = [
  "echo out; exit 3",
  "echo err >&2; ls /nonexistent; exit 2",
  `trap ${Q}${Q} USR2; kill -USR2 0; echo after $?`,
  `trap ${Q}${Q} USR1; kill -USR1 0; echo after $?`,
  `trap ${Q}${Q} QUIT; kill -QUIT 0; echo after $?`,
  `trap ${Q}${Q} HUP; kill -HUP 0; echo after $?`,
  `trap ${Q}${Q} TERM INT; kill -TERM 0; kill -INT 0; echo after $?`,
  "echo partial; kill -USR2 0; echo never",
  "printf 'a\\000b\\377c\\n'",
  "set -e; echo one; false; echo never",
  "(exit 4); echo rc=$?; cd /nonexistent 2>&1; echo rc=$?",
  `printf '%s\\n' ${`${Q}it${Q}"${Q}"${Q}s${Q}`.repeat(300)} | wc -lc`,
  'seq 1 3 | while read l; do echo "[$l]"; done; exit 0',
  // What the shell reports by line and traces (on stdout too, for one stream): the plumbing on line 1 must not show.
  'echo "line $LINENO"\nf() {\n  echo "in f $LINENO"\n}\nf',
  'exec 2>&1; f() { caller; echo "[${BASH_SOURCE[*]}] $LINENO"; }\nf\ncaller; echo "rc $?"',
  'exec 2>&1; set -x; echo one\nv=$(echo two); echo "$v"',
  "exec 2>&1; echo a\nx=$((1 / 0))\necho after",
  // A syntax error on a later line names only the user's text (not on the last: bash would quote the twin's comment).
  "exec 2>&1; echo one\nif then fi\necho never",
];

/**
 * Commands whose first line the shell refuses while parsing it, plumbing and all, so none of it runs: the tee
 * file never ends and is followed until the call's timeout (a short one here). An unterminated quote reads as
 * plain; bash quotes a syntax error's whole line, the one known difference in what the model reads
 * (docs/host-lines.md).
 */
const UNTERMINATED_QUOTE = "echo 'unterminated";
const FIRST_LINE_SYNTAX_ERROR = "if then fi";
const FIRST_LINE_TIMEOUT_SEC = 2;

/** A command that signals its group, then prints more than `exec` keeps: its whole output must be stored. */
const BIG = `trap ${Q}${Q} USR1 USR2 TERM; kill -USR1 0; kill -USR2 0; kill -TERM 0; seq -f %060g 1 6000`;
const BIG_OUTPUT = Array.from({ length: 6_000 }, (_, i) => `${String(i + 1).padStart(60, "0")}\n`).join("");

/**
 * The same command, passed through unwrapped by the exec policy (a comment naming a detaching command). On the
 * same line: under the host's `eval` a line more would change the line numbers bash reports.
 */
const plainTwin = (command: string): string => `${command} # nohup`;

async function runFullExecFidelity(session: ScenarioSession): Promise<void> {
  let answered: MockRequest | undefined;
  session.setScript((request: MockRequest): MockReply => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    if (hasToolResultInCurrentTurn(request.messages)) {
      if (request.userText.includes("Run the fidelity corpus")) answered = request;
      return { text: "They ran." };
    }
    // The big output in a turn of its own: a single unit the engine can shape on every line.
    if (request.userText.includes("Now the big one")) return { toolCalls: [{ name: "exec", args: { command: BIG } }] };
    if (!request.userText.includes("Run the fidelity corpus")) return { text: "A plain answer." };
    return {
      toolCalls: [
        ...COMMANDS.flatMap((command) => [
          { name: "exec", args: { command } },
          { name: "exec", args: { command: plainTwin(command) } },
        ]),
        ...[UNTERMINATED_QUOTE, plainTwin(UNTERMINATED_QUOTE), FIRST_LINE_SYNTAX_ERROR].map((command) => ({
          name: "exec",
          args: { command, timeoutSeconds: FIRST_LINE_TIMEOUT_SEC },
        })),
      ],
    };
  });
  const before = (await session.pluginEvents()).length;
  // 2026.5.28 and 2026.6.11 wait for a device scope upgrade before chat.send: granted as fetch-back does.
  const pairing = session.version === "2026.9.6" ? undefined : approvePendingPairings(session.env);
  try {
    for (const message of ["Run the fidelity corpus, each command wrapped and plain.", "Now the big one."]) {
      const from = (await session.pluginEvents()).length;
      await session.chatSend(message, 180_000);
      await waitForEvents(async () => (await session.pluginEvents()).slice(from), engineTurnSettled, {
        timeoutMs: 60_000,
      });
    }
  } finally {
    await pairing?.stop();
  }
  if (!answered) {
    const seen = session.requests().map((r) => `${r.userText.slice(0, 30)} tools=${r.toolNames.length}`);
    const log = (await session.hostLog())
      .split("\n")
      .filter((l) => /exec|tool|error/i.test(l))
      .slice(-30);
    expect.fail(`no request carried the exec results; requests: ${seen.join(" | ")}\n${log.join("\n")}`);
  }
  const results = toolResultsInCurrentTurn((answered as MockRequest).messages);
  expect(results.length).toBe(2 * COMMANDS.length + 3);
  for (const [i, command] of COMMANDS.entries())
    expect(results[2 * i], `what the model sees of: ${command.slice(0, 60)}`).toBe(results[2 * i + 1]);
  expect(results[2 * COMMANDS.length], "what the model sees of an unterminated quote").toBe(
    results[2 * COMMANDS.length + 1],
  );
  const quoted = String(results[2 * COMMANDS.length + 2]);
  if (path.basename(session.env.env.SHELL ?? "sh") === "bash") {
    expect(quoted, "bash's report names the token").toMatch(/syntax error near unexpected token `then'/);
    // The line as the host hands it on (2026.9.6 puts its PATH export before the command), plumbing included.
    expect(quoted, "and quotes the first line, the plumbing before the command").toMatch(
      /`[^\n]*if mkfifo -m 600 [^\n]*exec-tee[^\n]*; fi; if then fi'/,
    );
  } else {
    // The host's fallback `sh` (dash) names the token and the line number, and quotes nothing.
    expect(quoted, "dash's report names the token").toMatch(/^[^\n]*sh: 1: Syntax error: "then" unexpected/);
    expect(quoted, "and nothing of the plumbing").not.toMatch(/exec-tee|mkfifo/);
  }

  // The two whose first line never ran are followed until their timeout and its grace, then dropped.
  const unended = (events: PluginEvent[]) =>
    events.filter(
      (e) => e.op === "capture:skipped" && e.background === true && /not ended by its timeout/.test(String(e.reason)),
    );
  const events = await waitForEvents(
    async () => (await session.pluginEvents()).slice(before),
    (events) => unended(events).length >= 2,
    { timeoutMs: 4 * FIRST_LINE_TIMEOUT_SEC * 1000 + 10_000 },
  );
  expect(unended(events).length, "each first line that never ran followed to its timeout").toBe(2);
  expect(events.filter((e) => e.op === "full-exec:wrapped").length, "each command wrapped once").toBe(
    COMMANDS.length + 3,
  );
  expect(events.filter((e) => e.op === "full-exec:passed").length, "each twin passed through").toBe(
    COMMANDS.length + 1,
  );
  // Small outputs are not worth a handle; the big one is stored whole, byte for byte.
  const teed = events.filter((e) => e.source === "exec-tee" && (e.op === "capture" || e.op === "capture:skipped"));
  expect(teed.length, "every wrapped call's tee file taken").toBe(COMMANDS.length + 3);
  const big = teed.find((e) => e.op === "capture");
  expect(big?.bytes, "the big output stored whole").toBe(Buffer.byteLength(BIG_OUTPUT));
  const got = await cliFetchSha(session.env.stateDir, String(big?.handle));
  expect(got).toEqual({
    code: 0,
    bytes: Buffer.byteLength(BIG_OUTPUT),
    sha: createHash("sha256").update(BIG_OUTPUT).digest("hex"),
  });
  const left = await fsp.readdir(path.join(session.env.stateDir, "context-ledger", "exec-tee")).catch(() => []);
  expect(left, "no tee file or FIFO left behind").toEqual([]);
}

/**
 * Registered for the line files: 2026.9.6 and 2026.8.2, whose gateways run bash (`GATEWAY_SHELL`), so both run the
 * command in `eval` after the shell snapshot. The corpus under dash runs in `wrap-command.test.ts`.
 */
export const fullExecFidelity: HostScenario = {
  name: "full-exec-fidelity",
  lines: ["2026.8.2", "2026.9.6"],
  engines: ["context-ledger"],
  agentId: FULL_EXEC_AGENT,
  run: runFullExecFidelity,
};
