/**
 * The session's `chat.history` as a user who reopens the chat reads it, at full length:
 * the hosts cut each text to 8,000 chars unless the client asks for more (`maxChars`,
 * at most 500,000 on every line, which the Control UI asks for when it copies a
 * transcript), and a byte-equal judge needs the whole answer.
 */
import { GatewayRequestError } from "../test/host/gateway-ws.js";

/** The largest `maxChars` every host line's `chat.history` accepts. */
export const HISTORY_MAX_CHARS = 500_000;

/** How long a reader retries a `chat.history` the host answers as retryable. */
const HISTORY_RETRY_MS = 30_000;

/** A gateway method caller. */
export type GatewayCall = (method: string, params?: Record<string, unknown>, timeoutMs?: number) => Promise<unknown>;

/** Text of a history message: its string content or the text of its blocks. */
export function historyText(message: unknown): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (typeof (b as { text?: unknown } | undefined)?.text === "string" ? (b as { text: string }).text : ""))
    .join("");
}

/**
 * Non-empty assistant texts after the newest user message containing `userText`, in order, from a
 * `chat.history` result; every assistant text when no user message matches (the host may have reset
 * the session and dropped it).
 */
export function assistantTextsAfterUser(history: unknown, userText: string): string[] {
  const messages = (history as { messages?: unknown } | undefined)?.messages;
  const list: unknown[] = Array.isArray(messages) ? messages : [];
  const role = (m: unknown) => (m as { role?: unknown } | undefined)?.role;
  let from = -1;
  for (let i = list.length - 1; i >= 0; i--)
    if (role(list[i]) === "user" && historyText(list[i]).includes(userText)) {
      from = i;
      break;
    }
  return list
    .slice(from + 1)
    .filter((m) => role(m) === "assistant")
    .map(historyText)
    .filter((t) => t.trim().length > 0);
}

/**
 * Reads `chat.history` of `sessionKey` with full-length texts; retries while the host answers
 * `UNAVAILABLE` with `retryable` (2026.9.x re-indexing a rewritten transcript), as a client does.
 */
export async function readFullHistory(call: GatewayCall, sessionKey: string, limit = 100): Promise<unknown> {
  const deadline = Date.now() + HISTORY_RETRY_MS;
  for (;;) {
    try {
      return await call("chat.history", { sessionKey, limit, maxChars: HISTORY_MAX_CHARS }, 120_000);
    } catch (error) {
      if (!(error instanceof GatewayRequestError) || error.code !== "UNAVAILABLE" || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, error.retryAfterMs ?? 250));
    }
  }
}
