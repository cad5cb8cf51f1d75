/**
 * The long session of `long-session.ts` (20 turns, each an `exec` printing 40,000 chars and a
 * 2,000-char answer, window 32,000) on 2026.4.24, whose overflow precheck sizes the session as
 * the host loads it, not the assembled view. Paying tool outputs down is not enough there: by
 * turn 12 the answers alone fill the precheck's 12,000 tokens, and an engine whose compaction
 * only moves its own window gets the session reset (context-ledger did, and legacy does at turn
 * 11). context-ledger records its compaction in the host's transcript, so the host loads the
 * summary and the kept turns, and the summary reaches the model.
 */
import { expect } from "vitest";
import { countHostLogSignals, markLogs, readHostLog } from "../logs.js";
import { measureLongSession } from "./long-session.js";
import type { HostScenario } from "./scenario.js";
import { hostCompactionEntries } from "./turn-figures.js";
import { readHistory } from "../turn-as-seen.js";
import { textOfMessage } from "../mock-wire.js";

export const longSession424Scenario: HostScenario = {
  name: "long-session-424",
  lines: ["2026.4.24"],
  engines: ["context-ledger"],
  async run(session) {
    const mark = await markLogs(session.env);
    const figures = await measureLongSession(session, "long-session-424");
    const signals = countHostLogSignals(await readHostLog(session.env, [], mark));
    expect(figures.perTurn.map((t) => (t.answered ? "model" : `shown "${t.shown}" (${t.seen})`))).toEqual(
      figures.perTurn.map(() => "model"),
    );
    expect({ restarted: signals.sessionRestarted, resetReply: signals.resetReply }).toEqual({
      restarted: 0,
      resetReply: 0,
    });
    // The host overflowed on the raw session and compacted through the engine, which recorded it in the transcript...
    const compactions = await hostCompactionEntries(session);
    expect(compactions.length).toBeGreaterThan(0);
    expect(
      compactions.every((c) => c.engine === "context-ledger" && /ledger:v1:sha256:[0-9a-f]{64}/.test(c.summary)),
    ).toBe(true);
    // ...and the model was shown that summary after it.
    const shown = session.requests().filter((r) => JSON.stringify(r.body).includes("[context-ledger summary]"));
    expect(shown.length).toBeGreaterThan(0);
    // The chat history a user reopens lists every message line of the file: each turn once, its answer once (long
    // answers paid down show as stubs with their handle), none twice after the rewrites.
    const history = (await readHistory(session, 1000)) as { messages?: unknown[] };
    const texts = (history.messages ?? []).map((m) => `${String((m as { role?: unknown }).role)}: ${textOfMessage(m)}`);
    const turns = texts.filter((t) => /^user: .*Turn \d+:/.test(t)).map((t) => /Turn (\d+):/.exec(t)?.[1]);
    expect(turns, "each user turn once").toEqual(figures.perTurn.map((_, i) => String(i + 1)));
    const answers = texts.filter((t) => /^assistant: \S/.test(t));
    expect(answers.length, "one answer per turn").toBe(figures.perTurn.length);
    expect(new Set(answers).size, "no answer twice").toBe(answers.length);
  },
};
