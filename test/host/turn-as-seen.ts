/**
 * One user turn as the user saw it, measured from outside the host: send the message,
 * wait until the client's history (`chat.history`) shows the run's outcome, wait for the
 * engine's post-turn work (so that the next message starts a turn of its own: 2026.4.24
 * queues a message sent during that work as a follow-up), then read the history again, as
 * a user who reloads it: the turn counts as answered when that history shows the model's
 * answer once, byte for byte as the model wrote it. Real-host scenarios and `npm run demo`
 * send every turn this way.
 */
import type { ChatTurn } from "./gateway.js";
import { GatewayRequestError } from "./gateway-ws.js";
import { RESET_REPLY, type PluginEvent } from "./logs.js";
import type { MockRequest } from "./mock-model.js";
import { hasToolResultInCurrentTurn, SILENT_REPLY } from "./mock-scripts.js";
import { engineTurnSettled, pollUntil, waitForEvents } from "./settle.js";

/** How a model answer in these scenarios begins (the mock scripts answer "Answer N: …"). */
const ANSWER_PREFIX = "Answer ";

/** Host notices that stand in for a model answer when the host gives up on a turn. */
export const HOST_NOTICE_PATTERNS: readonly RegExp[] = [
  /Context is too large/i,
  /Context limit exceeded/i,
  /could not recover this turn/i,
  /I've reset our conversation/i,
  /Preflight compaction required but failed/i,
];

/** Requests that answered the turn with the final text (a tool result of the turn precedes them). */
export function isFinalAnswerRequest(request: MockRequest): boolean {
  return hasToolResultInCurrentTurn(request.messages);
}

function textOf(message: unknown): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) =>
      b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string"
        ? (b as { text: string }).text
        : "",
    )
    .join("");
}

/** What sending a turn as seen needs of a session on a running gateway (a scenario's session has it all). */
export interface SeenTurnSession {
  /** Engine in the context-engine slot; `legacy` has no post-turn events to wait for. */
  engineId: string;
  sessionKey: string;
  /** Model requests of this session so far, in order. */
  requests(): MockRequest[];
  /** Sends one user message into the session and waits until the run settles. */
  chatSend(message: string): Promise<ChatTurn>;
  /** Any gateway method (`chat.history` here). */
  call(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /** The engine plugin's events for this session so far. */
  pluginEvents(): Promise<PluginEvent[]>;
}

/**
 * Assistant texts shown after the user message `userText` (the newest one with that
 * text) in the session's `chat.history`: what the user saw for that turn, including
 * replies of host-internal runs the host appended (memory flush).
 */
export async function assistantTextsAfter(
  session: Pick<SeenTurnSession, "sessionKey" | "call">,
  userText: string,
): Promise<string[]> {
  const history = (await readHistory(session)) as Record<string, unknown> | undefined;
  const messages = Array.isArray(history?.messages) ? (history.messages as unknown[]) : [];
  let from = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown } | undefined;
    if (m?.role === "user" && textOf(m).includes(userText)) {
      from = i;
      break;
    }
  }
  return messages
    .slice(from + 1)
    .filter((m) => (m as { role?: unknown } | undefined)?.role === "assistant")
    .map(textOf)
    .filter((t) => t.trim().length > 0);
}

/**
 * True when the session's `chat.history` shows the send was handled: it holds the user message `userText` (the host
 * has taken it in), or its newest message is a host notice written after `sentAt` (2026.4.24's reset notice replaces
 * the turn and the history before it, the message included).
 */
async function sendHandled(
  session: Pick<SeenTurnSession, "sessionKey" | "call">,
  userText: string,
  sentAt: number,
): Promise<boolean> {
  const history = (await readHistory(session)) as Record<string, unknown> | undefined;
  const messages = Array.isArray(history?.messages) ? (history.messages as unknown[]) : [];
  const newest = messages.at(-1) as { role?: unknown; timestamp?: unknown } | undefined;
  if (
    newest?.role === "assistant" &&
    typeof newest.timestamp === "number" &&
    newest.timestamp >= sentAt &&
    isHostNotice(textOf(newest))
  )
    return true;
  return messages.some((m) => (m as { role?: unknown } | undefined)?.role === "user" && textOf(m).includes(userText));
}

/** How long a client keeps retrying a `chat.history` the host answers as retryable (see {@link readHistory}). */
const HISTORY_RETRY_MS = 30_000;

/**
 * The most text per message `chat.history` returns when asked (every line's schema caps `maxChars` there); by default
 * the hosts cut each text at 8,000 chars with "...(truncated)..." (`DEFAULT_CHAT_HISTORY_TEXT_MAX_CHARS`).
 */
export const HISTORY_MAX_CHARS = 500_000;

/**
 * `chat.history` as a client reads it, each text whole (up to {@link HISTORY_MAX_CHARS}): 2026.9.x answers
 * `UNAVAILABLE` with `retryable: true` and `retryAfterMs` while it re-indexes a rewritten transcript ("session
 * history is rebuilding; retry shortly"), and a client retries after that delay.
 */
export async function readHistory(session: Pick<SeenTurnSession, "sessionKey" | "call">, limit = 60): Promise<unknown> {
  const deadline = Date.now() + HISTORY_RETRY_MS;
  for (;;) {
    try {
      const params = { sessionKey: session.sessionKey, limit, maxChars: HISTORY_MAX_CHARS };
      return await session.call("chat.history", params, 120_000);
    } catch (error) {
      if (!(error instanceof GatewayRequestError) || error.code !== "UNAVAILABLE" || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, error.retryAfterMs ?? 250));
    }
  }
}

/** A turn was answered by the model: one of its shown texts is the model's answer and none is a give-up notice. */
export function answeredByModel(shown: readonly string[], answerPrefix = ANSWER_PREFIX): boolean {
  return shown.some((t) => t.startsWith(answerPrefix)) && !shown.some(isHostNotice);
}

/** True when `text` is a host notice rather than a model answer. */
export function isHostNotice(text: string): boolean {
  return HOST_NOTICE_PATTERNS.some((p) => p.test(text));
}

/** One user turn as the user saw it. */
export interface SeenTurn {
  result: ChatTurn;
  /** The model requests of the turn. */
  requests: MockRequest[];
  /** Every assistant text the client shows for the turn, in order. */
  texts: string[];
  /** The first shown text that is the model's answer, else the last shown text. */
  shown: string;
  /**
   * The model produced the final answer and the client's history, read again after the engine's post-turn work,
   * shows it once, byte for byte (no host notice).
   */
  answered: boolean;
  /** The final answer as the model wrote it (undefined when the model wrote none the mock recorded). */
  modelAnswer?: string;
  /** The model was asked for the turn's final answer (a request of the turn carried its tool result). */
  finalAnswerAsked: boolean;
  /** Why the client's history could not be read after the run, if it could not (then `texts` is empty). */
  historyError?: string;
  /**
   * Milliseconds the client's history took to show an answer the model had already given, when the first read did not
   * (see {@link HISTORY_CATCH_UP_MS}).
   */
  historyCatchUpMs?: number;
}

/**
 * How long a reader waits for the model to be asked a turn's final answer when the send's run ended without
 * asking it (the message ran in a later run).
 */
export const LATE_RUN_MS = 30_000;

/**
 * How long a reader waits for the client's history to show an answer the model gave in a run that
 * ended ok. Checked only when the turn's final-answer request reached the model: a message the host
 * queued or skipped never made that request, so it is not waited for.
 */
export const HISTORY_CATCH_UP_MS = 10_000;

async function readTurnTexts(
  session: SeenTurnSession,
  message: string,
  modelAnswered: boolean,
  catchUpMs: number,
): Promise<Pick<SeenTurn, "texts" | "historyError" | "historyCatchUpMs">> {
  const t0 = Date.now();
  let reads = 0;
  const read = await pollUntil(
    async (): Promise<Pick<SeenTurn, "texts" | "historyError">> => {
      reads++;
      try {
        return { texts: await assistantTextsAfter(session, message) };
      } catch (error) {
        return { texts: [], historyError: error instanceof Error ? error.message : String(error) };
      }
    },
    (r) => !modelAnswered || r.texts.some((t) => t.startsWith(ANSWER_PREFIX)),
    { timeoutMs: catchUpMs, intervalMs: 250 },
  );
  const caughtUp = reads > 1 && read.texts.some((t) => t.startsWith(ANSWER_PREFIX));
  return { ...read, ...(caughtUp ? { historyCatchUpMs: Date.now() - t0 } : {}) };
}

/**
 * How often the session's whole `chat.history` shows each of `answers` as an assistant text, byte for byte (1 each is
 * the conversation as it happened).
 */
export async function answerCountsInHistory(
  session: Pick<SeenTurnSession, "sessionKey" | "call">,
  answers: readonly string[],
): Promise<number[]> {
  const history = (await readHistory(session, 1000)) as Record<string, unknown> | undefined;
  const messages = Array.isArray(history?.messages) ? (history.messages as unknown[]) : [];
  const shown = messages.filter((m) => (m as { role?: unknown } | undefined)?.role === "assistant").map(textOf);
  return answers.map((a) => shown.filter((t) => t === a).length);
}

/** The conversation as the session's whole `chat.history` shows it (what a user reopening the chat reads). */
export interface ConversationShown {
  /** How often each given answer is shown as an assistant text, byte for byte. */
  answerCounts: number[];
  /** The turn numbers (`Turn N:`) of the user messages shown, in order. */
  userTurns: string[];
  /** Non-empty assistant texts shown (a tool call alone has none), the silent reply left out. */
  assistantTexts: number;
  /** How many of those texts differ from each other. */
  distinctAssistantTexts: number;
}

/** Reads the session's whole `chat.history` (each text whole) as a {@link ConversationShown} for `answers`. */
export async function conversationShown(
  session: Pick<SeenTurnSession, "sessionKey" | "call">,
  answers: readonly string[],
): Promise<ConversationShown> {
  const history = (await readHistory(session, 1000)) as Record<string, unknown> | undefined;
  const messages = Array.isArray(history?.messages) ? (history.messages as unknown[]) : [];
  const ofRole = (role: string) =>
    messages.filter((m) => (m as { role?: unknown } | undefined)?.role === role).map(textOf);
  // The silent reply (a host-started run's "nothing to say") is a control token, not a text of the conversation.
  const assistant = ofRole("assistant").filter((t) => t.trim().length > 0 && t.trim() !== SILENT_REPLY);
  return {
    answerCounts: answers.map((a) => assistant.filter((t) => t === a).length),
    userTurns: ofRole("user").flatMap((t) => /Turn (\d+):/.exec(t)?.[1] ?? []),
    assistantTexts: assistant.length,
    distinctAssistantTexts: new Set(assistant).size,
  };
}

/**
 * The conversation as it happened, for a session of `answers.length` turns whose messages are `turnMessage(1..n)`
 * and whose answers are `answers`: each message once and in order, each answer once, and no other assistant text.
 */
export function conversationAsWritten(answers: readonly string[]): ConversationShown {
  return {
    answerCounts: answers.map(() => 1),
    userTurns: answers.map((_, i) => String(i + 1)),
    assistantTexts: answers.length,
    distinctAssistantTexts: answers.length,
  };
}

/** The text of the turn's final answer as the model wrote it: the last text-only reply of the turn's requests. */
export function modelAnswerOf(requests: readonly MockRequest[]): string | undefined {
  for (let i = requests.length - 1; i >= 0; i--) {
    const reply = requests[i]?.reply;
    if (reply && !("toolCalls" in reply) && typeof reply.text === "string" && reply.text.startsWith(ANSWER_PREFIX))
      return reply.text;
  }
  return undefined;
}

/**
 * True when `texts` (what the history shows for a turn) hold the model's answer exactly once, byte for byte, and no
 * host notice; without a recorded answer (a real model), when one shown text is an answer.
 */
export function showsAnswerOnce(texts: readonly string[], modelAnswer: string | undefined): boolean {
  if (modelAnswer === undefined) return answeredByModel(texts);
  return texts.filter((t) => t === modelAnswer).length === 1 && !texts.some(isHostNotice);
}

/**
 * Sends one message, waits until the client's history shows the run's outcome, waits for the engine's post-turn
 * work (2026.4.24 queues a message sent during it, and a reader waits too), and judges the turn by the history read
 * after that work.
 */
export async function sendTurnAsSeen(
  session: SeenTurnSession,
  message: string,
  options: { catchUpMs?: number } = {},
): Promise<SeenTurn> {
  const before = session.requests().length;
  const eventsBefore = session.engineId === "legacy" ? 0 : (await session.pluginEvents()).length;
  const sentAt = Date.now();
  const result = await session.chatSend(message);
  // 2026.4.24 may end the send's own run at once, with no model request and its message not yet in the history,
  // and run the message moments later (clean-clone runs: "run ok, 0 requests" in half a second). A user sees
  // that answer arrive: wait for the turn's final-answer request as for a queued message. (A host notice in
  // place of a turn leaves the message in the history: no wait.)
  if (
    result.wait.status === "ok" &&
    session.requests().length === before &&
    !(await sendHandled(session, message, sentAt).catch(() => true))
  )
    await pollUntil(
      async () => session.requests().slice(before),
      (rs) => rs.some(isFinalAnswerRequest),
      { timeoutMs: LATE_RUN_MS, intervalMs: 100 },
    );
  const requests = session.requests().slice(before);
  const finalAnswerAsked = requests.some(isFinalAnswerRequest);
  const read = await readTurnTexts(
    session,
    message,
    finalAnswerAsked && result.wait.status === "ok",
    options.catchUpMs ?? HISTORY_CATCH_UP_MS,
  );
  if (session.engineId !== "legacy")
    await waitForEvents(async () => (await session.pluginEvents()).slice(eventsBefore), engineTurnSettled, {
      timeoutMs: 30_000,
    });
  // As a user who reloads the history after the turn: what the engine's post-turn work left is what counts.
  const after = read.historyError ? read : await readTurnTexts(session, message, false, 0);
  const texts = after.historyError ? read.texts : after.texts;
  const modelAnswer = modelAnswerOf(requests);
  const shown =
    texts.find((t) => modelAnswer !== undefined && t === modelAnswer) ??
    texts.find((t) => t.startsWith(ANSWER_PREFIX)) ??
    texts.at(-1) ??
    "";
  return {
    result,
    requests,
    shown,
    answered: finalAnswerAsked && showsAnswerOnce(texts, modelAnswer),
    ...(modelAnswer !== undefined ? { modelAnswer } : {}),
    finalAnswerAsked,
    ...read,
    texts,
    ...(after.historyError && !read.historyError ? { historyError: after.historyError } : {}),
  };
}

/**
 * What a turn needs for a diagnosis from a test's output alone: how the run ended, whether the
 * message was queued, the model requests and whether the final answer was asked, and what the
 * client's history did (could not be read, or showed the answer only on a later read).
 */
export function describeSeenTurn(seen: SeenTurn): string {
  const history = seen.historyError
    ? `, history: ${seen.historyError}`
    : seen.historyCatchUpMs
      ? `, history showed the answer after ${seen.historyCatchUpMs} ms`
      : "";
  const error = typeof seen.result.wait.error === "string" ? ` (${seen.result.wait.error.slice(0, 200)})` : "";
  return `run ${String(seen.result.wait.status)}${error}${seen.result.queued ? " (queued)" : ""}, ${seen.requests.length} requests, final answer ${seen.finalAnswerAsked ? "asked" : "not asked"}${history}`;
}

/**
 * The turn's status in one word or two, as the user saw it: `answered` (the model's
 * answer, no host notice), `reset notice`, `host notice` (another give-up notice),
 * else the run's own status when it did not end ok (`error`, `timeout`), `not answered`
 * (something else was shown) or `no reply`.
 */
export function seenStatus(seen: { answered: boolean; texts: readonly string[]; waitStatus: string }): string {
  if (seen.answered) return "answered";
  if (seen.texts.some((t) => t.includes(RESET_REPLY))) return "reset notice";
  if (seen.texts.some(isHostNotice)) return "host notice";
  if (seen.waitStatus !== "ok") return seen.waitStatus;
  return seen.texts.length > 0 ? "not answered" : "no reply";
}
