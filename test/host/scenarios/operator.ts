/**
 * The operator surface in a real host: `/ledger status`, `/ledger view` and
 * `/ledger fetch HANDLE lines A-B` answered in the chat (through the host's
 * plugin command API, without a model request), `openclaw context-ledger view
 * --json` (the host's CLI with the plugin's commands) and the standalone
 * `context-ledger artifact list` / `grep` / `view` reading the gateway's ledger state.
 */
import { expect } from "vitest";
import { NODE_BINARY } from "../host-install.js";
import { execTurnScript, printedChars } from "../mock-scripts.js";
import { extractJson, runLedgerCli, runOpenclaw } from "../openclaw-cli.js";
import { readHistory } from "../turn-as-seen.js";
import type { HostScenario, ScenarioSession } from "./scenario.js";

const OUTPUT_CHARS = 60_000;

export const operatorScenario: HostScenario = {
  name: "operator-surface",
  lines: ["2026.9.6"],
  engines: ["context-ledger"],
  async run(s) {
    s.setScript(execTurnScript({ outputChars: OUTPUT_CHARS, answerChars: 400, nodePath: NODE_BINARY }));
    // 2026.9.x hands the engine the history before the current turn: the second turn's
    // prompt is the first that carries the first turn's (offloaded) tool output.
    for (const message of ["Run the report and summarize it.", "Run it again and compare."]) {
      const turn = await s.chatSend(message);
      expect(turn.wait.status, JSON.stringify(turn.wait)).toBe("ok");
    }
    const modelRequests = s.requests().length;
    expect(modelRequests).toBeGreaterThanOrEqual(2);

    const status = await command(s, "/ledger status");
    expect(status, status).toMatch(/Session agent:main:operator-surface: \d+ turns?/);
    expect(status).toMatch(/Prompt [\d,]+ of [\d,]+ budget tokens; raw history [\d,]+ tokens/);

    const view = await command(s, "/ledger view");
    expect(view, view).toContain("What the model saw · turn 2");
    expect(view).toMatch(/Kept [1-9]\d* of [1-9]\d* messages/);

    // The exec output the capture middleware stored losslessly before the host truncated it.
    const list = await runLedgerCli(s.env, ["artifact", "list", "--session", s.sessionKey, "--json"], {
      timeoutMs: 120_000,
    });
    expect(list.code, list.stderr.slice(-2000)).toBe(0);
    const artifacts = (
      extractJson(list.stdout) as { artifacts: { handle: string; bytes: number; origin: { toolName?: string } }[] }
    ).artifacts;
    const output = artifacts.find((a) => a.origin.toolName === "exec" && a.bytes === OUTPUT_CHARS);
    expect(output, JSON.stringify(artifacts).slice(0, 1500)).toBeDefined();
    const handle = output?.handle ?? "";

    const fetched = await command(s, `/ledger fetch ${handle} lines 2-4`);
    expect(fetched, fetched).toContain(`[context-ledger fetch ${handle}`);
    expect(fetched).toContain(printedChars(OUTPUT_CHARS).split("\n").slice(1, 4).join("\n"));
    // The short handle the stubs print, typed as a person would.
    const typed = await command(s, `/ledger fetch ${handle.slice(-64, -52)} tail 3`);
    expect(typed, typed).toContain(`[context-ledger fetch ${handle}`);
    expect(typed).toContain(printedChars(OUTPUT_CHARS).trimEnd().split("\n").slice(-3).join("\n"));
    // Commands are answered by the plugin: no model request carries them. (Counting all requests raced the
    // host's own late runs after turn 2 under load: 6 seen where 4 were the turns'.)
    const forCommands = s
      .requests()
      .slice(modelRequests)
      .filter((r) => r.userText.includes("/ledger"));
    expect(forCommands.map((r) => r.userText)).toEqual([]);

    const cliView = await runOpenclaw(s.env, ["context-ledger", "view", "--session", s.sessionKey, "--json"], {
      timeoutMs: 120_000,
    });
    expect(cliView.code, cliView.stderr.slice(-2000)).toBe(0);
    const doc = extractJson(cliView.stdout) as {
      schema: string;
      view: {
        sessionKey: string;
        turn: number;
        messages: { role: string }[];
        estimatedTokens: number;
        budget: { tokens: number };
      };
    };
    expect(doc.schema).toBe("context-ledger.view.v1");
    expect(doc.view).toMatchObject({ sessionKey: s.sessionKey, turn: 2 });
    expect(doc.view.messages.map((m) => m.role)).toContain("toolResult");
    expect(doc.view.estimatedTokens).toBeLessThanOrEqual(doc.view.budget.tokens);

    const grep = await runLedgerCli(s.env, ["grep", "status=retry latency_ms=0 ", "--json"], {
      timeoutMs: 120_000,
    });
    expect(grep.code, grep.stderr.slice(-2000)).toBe(0);
    const hits = extractJson(grep.stdout) as { schema: string; matches: number; hits: { handle: string }[] };
    expect(hits.schema).toBe("context-ledger.grep.v1");
    expect(hits.hits.map((h) => h.handle)).toContain(handle);

    const bad = await runLedgerCli(s.env, ["view", "--session", "agent:main:nope", "--json"], {
      timeoutMs: 120_000,
    });
    expect(bad.code).toBe(2);
    expect(extractJson(bad.stdout)).toMatchObject({ ok: false, error: { code: "not_found", exitCode: 2 } });
    // Operator text stays out of the model's prompt: the next turn's requests carry neither a command nor a reply.
    const beforeNext = s.requests().length;
    const next = await s.chatSend("One more run, briefly.");
    expect(next.wait.status, JSON.stringify(next.wait)).toBe("ok");
    const nextRequests = s.requests().slice(beforeNext);
    expect(nextRequests.length).toBeGreaterThan(0);
    for (const r of nextRequests) {
      const body = JSON.stringify(r.messages);
      const found = ["/ledger", "budget tokens; raw history", "What the model saw", "[context-ledger fetch"].map((t) =>
        body.indexOf(t),
      );
      expect(
        found.filter((at) => at >= 0).map((at) => body.slice(Math.max(0, at - 300), at + 200)),
        "operator text in a model request",
      ).toEqual([]);
    }
    console.log(
      `[operator] /ledger status →\n${status}\n[operator] /ledger view →\n${view}\n[operator] fetch → ${fetched.split("\n")[0]}\n[operator] grep → ${hits.matches} matches; view --json turn ${doc.view.turn}, ${doc.view.messages.length} messages, ${doc.view.estimatedTokens}/${doc.view.budget.tokens} tokens`,
    );
  },
};

/** Sends a slash command into the session and returns the reply the chat shows. */
export async function command(s: ScenarioSession, text: string): Promise<string> {
  await s.chatSend(text, 120_000);
  const history = (await readHistory(s, 6)) as { messages?: unknown[] };
  const messages = history.messages ?? [];
  const texts = messages.map(textOf);
  const at = texts.findIndex((t) => t.trim() === text);
  const reply = (at >= 0 ? texts.slice(at + 1) : texts.slice(-1)).find((t) => t.trim().length > 0);
  if (!reply)
    throw new Error(`Expected a reply to ${text} in chat.history, got ${JSON.stringify(messages).slice(0, 2000)}`);
  return reply;
}

function textOf(message: unknown): string {
  const content =
    (message as { content?: unknown; text?: unknown } | null)?.content ?? (message as { text?: unknown } | null)?.text;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((b) => (typeof (b as { text?: unknown }).text === "string" ? (b as { text: string }).text : ""))
      .join("\n");
  return "";
}
