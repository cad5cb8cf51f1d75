/**
 * The long session of `long-session.ts` (20 turns, each an `exec` printing 40,000 chars) with
 * 12,000-char answers, window 32,000, on 2026.4.24, whose overflow precheck sizes the session as
 * the host loads it, not only the assembled view. Paying tool outputs down is not enough there: two
 * turns' answers fill the precheck's 12,000 tokens, and an engine whose compaction only moves its
 * own window gets the session reset. Answers are never rewritten: context-ledger records its
 * compactions in the host's transcript, so the host loads the summary and the kept turns, the
 * summary reaches the model, and `chat.history` shows every answer once, as written, after each
 * turn's post-turn work and again after a gateway restart.
 */
import { expect } from "vitest";
import { countHostLogSignals, markLogs, readHostLog } from "../logs.js";
import { LONG_SESSION, measureLongSession } from "./long-session.js";
import type { HostScenario } from "./scenario.js";
import { hostCompactionEntries } from "./turn-figures.js";
import { conversationAsWritten, conversationShown } from "../turn-as-seen.js";

/** Answers as long as the reset loop's: two of them fill what 2026.4.24's precheck admits at 32,000. */
const ANSWER_CHARS = 12_000;

export const longSession424Scenario: HostScenario = {
  name: "long-session-424",
  lines: ["2026.4.24"],
  engines: ["context-ledger"],
  async run(session) {
    const mark = await markLogs(session.env);
    const figures = await measureLongSession(session, "long-session-424", {
      ...LONG_SESSION,
      answerChars: ANSWER_CHARS,
    });
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
    expect(figures.requestsBelowMaxTokens, "requests below maxTokens").toBe(0);
    // The chat history a user reopens lists every message line of the file: each turn once, its answer once and
    // whole, none twice after the rewrites, before and after a gateway restart.
    expect(figures.answers.every((a) => a.length >= ANSWER_CHARS)).toBe(true);
    const asWritten = conversationAsWritten(figures.answers);
    expect(await conversationShown(session, figures.answers), "chat.history after the post-turn work").toEqual(
      asWritten,
    );
    await session.restartGateway();
    expect(await conversationShown(session, figures.answers), "chat.history after a gateway restart").toEqual(
      asWritten,
    );
  },
};
