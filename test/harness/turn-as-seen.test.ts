/**
 * Sending a turn as the user sees it, on a fake session (no host): the turn is read
 * from the client's history, the call returns only once the engine's post-turn work
 * is logged, and the status names what the user saw.
 */
import { describe, expect, it } from "vitest";
import type { PluginEvent } from "../host/logs.js";
import type { MockRequest } from "../host/mock-model.js";
import { GatewayRequestError } from "../host/gateway-ws.js";
import { describeSeenTurn, seenStatus, sendTurnAsSeen, type SeenTurnSession } from "../host/turn-as-seen.js";

const request = (messages: unknown[]): MockRequest => ({
  index: 0,
  turn: 1,
  indexInTurn: 0,
  wire: "openai-completions",
  body: {},
  messages,
  lastMessage: messages.at(-1),
  userText: "",
  toolNames: ["exec"],
  bytes: 0,
  messageBytes: 0,
  capped: false,
  partition: "",
});
const text = (role: string, t: string) => ({ role, content: [{ type: "text", text: t }] });

/**
 * A session whose host answers each message with `reply` and logs `maintain` only on the third read after `afterTurn`;
 * its `chat.history` answers `rebuilding` (retryable, as 2026.9.x after a transcript rewrite) the first
 * `rebuildingReads` times.
 */
function fakeSession(engineId: string, reply: string, modelAnswers: boolean, rebuildingReads = 0) {
  const requests: MockRequest[] = [];
  const history: unknown[] = [];
  const events: PluginEvent[] = [];
  let reads = 0;
  const session: SeenTurnSession = {
    engineId,
    sessionKey: "agent:main:fake",
    requests: () => requests,
    async chatSend(message) {
      const user = text("user", message);
      if (modelAnswers)
        requests.push(
          request([user]),
          request([user, { role: "assistant", tool_calls: [] }, { role: "tool", content: "out" }]),
        );
      history.push(user, text("assistant", reply));
      events.push({ ts: "", op: "afterTurn" });
      reads = 0;
      return { runId: "r1", wait: { status: "ok" }, ms: 5 };
    },
    async call(method, params) {
      expect(method).toBe("chat.history");
      expect(params?.sessionKey).toBe("agent:main:fake");
      if (rebuildingReads-- > 0)
        throw new GatewayRequestError("chat.history", {
          code: "UNAVAILABLE",
          message: "session history is rebuilding; retry shortly",
          retryAfterMs: 5,
        });
      return { messages: history };
    },
    async pluginEvents() {
      if (events.at(-1)?.op === "afterTurn" && ++reads === 3) events.push({ ts: "", op: "maintain" });
      return [...events];
    },
  };
  return { session, events };
}

describe("sendTurnAsSeen", () => {
  it("returns the client's text for the turn only after the engine's post-turn work", async () => {
    const { session, events } = fakeSession("context-ledger", "Answer 1: the report changed.", true);
    const seen = await sendTurnAsSeen(session, "Turn 1: run it.");
    expect(events.map((e) => e.op)).toEqual(["afterTurn", "maintain"]);
    expect(seen).toMatchObject({
      texts: ["Answer 1: the report changed."],
      shown: "Answer 1: the report changed.",
      answered: true,
    });
    expect(seen.requests).toHaveLength(2);
    const next = await sendTurnAsSeen(session, "Turn 2: again.");
    expect(next.texts).toEqual(["Answer 1: the report changed."]);
    expect(next.requests).toHaveLength(2);
  });

  it("reads the client's history again while the host answers that it is rebuilding (retryable), as a client does", async () => {
    const { session } = fakeSession("context-ledger", "Answer 1: the report changed.", true, 3);
    const seen = await sendTurnAsSeen(session, "Turn 1: run it.");
    expect(seen).toMatchObject({ texts: ["Answer 1: the report changed."], answered: true });
    expect(seen.historyError).toBeUndefined();
  });

  it("a history that cannot be read is not an answer, and says why", async () => {
    const { session } = fakeSession("context-ledger", "Answer 1: the report changed.", true);
    session.call = async () => {
      throw new GatewayRequestError("chat.history", { code: "INVALID_REQUEST", message: "unknown session" });
    };
    const seen = await sendTurnAsSeen(session, "Turn 1: run it.", { catchUpMs: 50 });
    expect(seen).toMatchObject({ texts: [], answered: false });
    expect(seen.historyError).toMatch(/unknown session/);
    expect(describeSeenTurn(seen)).toBe(
      "run ok, 2 requests, final answer asked, history: Expected gateway chat.history to succeed, got INVALID_REQUEST: unknown session",
    );
  });

  it("waits for the history to show an answer the model gave, and says how long it took", async () => {
    const { session } = fakeSession("context-ledger", "Answer 1: the report changed.", true);
    const read = session.call.bind(session);
    let reads = 0;
    session.call = async (method, params) =>
      ++reads < 3 ? { messages: [text("user", "Turn 1: run it.")] } : read(method, params);
    const seen = await sendTurnAsSeen(session, "Turn 1: run it.");
    // Two reads without the answer, the one that shows it, and the read after the post-turn work.
    expect(reads).toBe(4);
    expect(seen).toMatchObject({ texts: ["Answer 1: the report changed."], answered: true });
    expect(seen.historyCatchUpMs).toEqual(expect.any(Number));
    expect(describeSeenTurn(seen)).toMatch(
      /^run ok, 2 requests, final answer asked, history showed the answer after \d+ ms$/,
    );
  });

  it("judges the history read after the post-turn work: an answer that became a stub there is not answered", async () => {
    const answer = "Answer 1: the report changed.";
    const { session, events } = fakeSession("context-ledger", answer, true);
    const send = session.chatSend.bind(session);
    session.chatSend = async (message) => {
      const turn = await send(message);
      const last = session.requests().at(-1);
      if (last) last.reply = { text: answer };
      return turn;
    };
    const read = session.call.bind(session);
    // What the post-turn work leaves: the answer rewritten into a stub of itself.
    session.call = async (method, params) => {
      const h = (await read(method, params)) as { messages: unknown[] };
      if (events.at(-1)?.op !== "maintain") return h;
      const stub = "[context-ledger artifact ledger:v1:sha256:" + "0".repeat(64) + "] assistant output · 29 chars";
      return { messages: h.messages.map((m) => (JSON.stringify(m).includes(answer) ? text("assistant", stub) : m)) };
    };
    const seen = await sendTurnAsSeen(session, "Turn 1: run it.");
    expect(seen).toMatchObject({ answered: false, modelAnswer: answer, finalAnswerAsked: true });
    expect(seen.shown).toMatch(/^\[context-ledger artifact /);
  });

  it("an answer the history shows twice, or other than the model wrote it, is not answered", async () => {
    for (const [shownAs, answered] of [
      [["Answer 1: done."], true],
      [["Answer 1: done.", "Answer 1: done."], false],
      [["Answer 1: done. (edited)"], false],
    ] as const) {
      const { session } = fakeSession("context-ledger", shownAs[0], true);
      const send = session.chatSend.bind(session);
      session.chatSend = async (message) => {
        const turn = await send(message);
        const last = session.requests().at(-1);
        if (last) last.reply = { text: "Answer 1: done." };
        return turn;
      };
      const read = session.call.bind(session);
      session.call = async (method, params) => {
        const h = (await read(method, params)) as { messages: unknown[] };
        return { messages: [...h.messages, ...shownAs.slice(1).map((t) => text("assistant", t))] };
      };
      const seen = await sendTurnAsSeen(session, "Turn 1: run it.");
      expect(seen.answered, JSON.stringify(shownAs)).toBe(answered);
    }
  });

  it("does not wait for an answer when the model was never asked for one (a queued or skipped turn)", async () => {
    const { session } = fakeSession("context-ledger", "", false);
    let reads = 0;
    session.call = async () => (reads++, { messages: [text("user", "Turn 1: run it.")] });
    const seen = await sendTurnAsSeen(session, "Turn 1: run it.");
    // One read finds the message taken in (so no later run is waited for), one reads what the turn shows, one reads
    // it again after the post-turn work.
    expect(reads).toBe(3);
    expect(seen).toMatchObject({ texts: [], shown: "", answered: false });
    expect(seen.historyCatchUpMs).toBeUndefined();
    expect(describeSeenTurn(seen)).toBe("run ok, 0 requests, final answer not asked");
  });

  it("a send whose run ended before the model was asked waits for the run that takes the message", async () => {
    const { session } = fakeSession("context-ledger", "", false);
    const requests: MockRequest[] = [];
    const history: unknown[] = [];
    session.requests = () => requests;
    session.chatSend = async (message) => {
      // The host takes the message in and answers it 300 ms after the send's own run ended.
      setTimeout(() => {
        const user = text("user", message);
        requests.push(request([user, { role: "assistant", tool_calls: [] }, { role: "tool", content: "out" }]));
        history.push(user, text("assistant", "Answer 1: done late"));
      }, 300);
      return { runId: "r1", wait: { status: "ok" }, ms: 400 };
    };
    session.call = async () => ({ messages: history });
    session.pluginEvents = async () =>
      history.length > 0
        ? [
            { ts: "", op: "afterTurn" },
            { ts: "", op: "maintain" },
          ]
        : [];
    const seen = await sendTurnAsSeen(session, "Turn 1: run it.");
    expect(seen).toMatchObject({ answered: true, shown: "Answer 1: done late", finalAnswerAsked: true });
  });

  it("a host notice without a model request is not an answer (legacy: nothing to wait for)", async () => {
    const notice = "⚠️ Context limit exceeded. I've reset our conversation to start fresh - please try again.";
    const { session, events } = fakeSession("legacy", notice, false);
    const seen = await sendTurnAsSeen(session, "Turn 3: run it.");
    expect(events.map((e) => e.op)).toEqual(["afterTurn"]);
    expect(seen).toMatchObject({ requests: [], shown: notice, answered: false });
    expect(
      seenStatus({ answered: seen.answered, texts: seen.texts, waitStatus: String(seen.result.wait.status) }),
    ).toBe("reset notice");
  });
  it("a reset notice that replaced the turn and the history before it ends the turn at once", async () => {
    const notice = "⚠️ Context limit exceeded. I've reset our conversation to start fresh - please try again.";
    const { session } = fakeSession("legacy", notice, false);
    const history: unknown[] = [text("assistant", "Answer 2: an earlier turn")];
    session.chatSend = async () => {
      // 2026.4.24: the notice is all the history holds after the reset, the sent message included.
      history.splice(0, history.length, { ...text("assistant", notice), timestamp: Date.now() });
      return { runId: "r1", wait: { status: "ok" }, ms: 5 };
    };
    session.call = async () => ({ messages: history });
    const requestsOf = session.requests.bind(session);
    let requestReads = 0;
    session.requests = () => {
      requestReads++;
      return requestsOf();
    };
    const seen = await sendTurnAsSeen(session, "Turn 3: run it.");
    // Read before the send, after it and to take the turn's requests; a wait for a late run polls them every 100 ms.
    expect(requestReads).toBeLessThanOrEqual(3);
    expect(seen).toMatchObject({ requests: [], shown: notice, answered: false });
  });
});

describe("seenStatus", () => {
  it.each([
    [{ answered: true, texts: ["Answer 1: done"], waitStatus: "ok" }, "answered"],
    [{ answered: false, texts: ["I've reset our conversation to start fresh"], waitStatus: "ok" }, "reset notice"],
    [{ answered: false, texts: ["Context is too large for this model."], waitStatus: "ok" }, "host notice"],
    [{ answered: false, texts: ["Preflight compaction required but failed"], waitStatus: "error" }, "host notice"],
    [{ answered: false, texts: [], waitStatus: "timeout" }, "timeout"],
    [{ answered: false, texts: ["Summary of the conversation so far"], waitStatus: "ok" }, "not answered"],
    [{ answered: false, texts: [], waitStatus: "ok" }, "no reply"],
  ])("%j → %s", (seen, status) => {
    expect(seenStatus(seen)).toBe(status);
  });
});
