import { createHash } from "node:crypto";

/**
 * A host message as the engine reads it: structurally, because hosts and
 * hostile callers send anything. The real shape is OpenClaw's `AgentMessage`.
 */
export type LooseMessage = Record<string, unknown> & { role?: unknown; content?: unknown };

/** Marker that starts every block the engine itself injects. */
export const LEDGER_MARKER = "[context-ledger";
/** The field that marks the session summary message the engine puts first in its view. */
const SUMMARY_MESSAGE_FIELD = "contextLedger";

/**
 * The session summary as the view's first message (a user message, marked). It travels in
 * the history rather than as a system prompt addition because hosts prepend an addition to
 * their system prompt (2026.9.6 `prependSystemPromptAddition`): a summary that changes at a
 * re-plan would also void the provider's cached system prompt. `timestamp` is fixed so the
 * message is byte-identical while the summary is.
 */
export function summaryMessage(text: string): LooseMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: 0, [SUMMARY_MESSAGE_FIELD]: "summary" };
}

/** True for a message made by {@link summaryMessage} (handed back inside a turn by hosts that keep the view). */
export function isSummaryMessage(message: unknown): boolean {
  return (message as Record<string, unknown> | null)?.[SUMMARY_MESSAGE_FIELD] === "summary";
}

/** Prefix of the user message 2026.9.x appends after tool results. */
export const HOST_INTERNAL_CONTEXT_PREFIX = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/** The role, or `"unknown"`. */
export function roleOf(message: unknown): string {
  const role = (message as LooseMessage | null)?.role;
  return typeof role === "string" ? role : "unknown";
}

/** Content blocks of a message (a string content becomes one text block). */
export function blocksOf(message: unknown): Record<string, unknown>[] {
  const content = (message as LooseMessage | null)?.content;
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter((b): b is Record<string, unknown> => !!b && typeof b === "object");
}

/** All text of a message's text blocks, joined by newlines. */
export function textOf(message: unknown): string {
  const parts: string[] = [];
  for (const block of blocksOf(message)) {
    if (typeof block.text === "string") parts.push(block.text);
  }
  return parts.join("\n");
}

/** Ids of the tool calls an assistant message makes. */
export function toolCallIdsOf(message: unknown): string[] {
  if (roleOf(message) !== "assistant") return [];
  const ids: string[] = [];
  for (const block of blocksOf(message)) if (isToolCallBlock(block)) ids.push(block.id);
  return ids;
}

/** A content block that calls a tool, in any of the hosts' spellings. */
function isToolCallBlock(block: unknown): block is { id: string } {
  const b = block as Record<string, unknown> | null;
  return !!b && (b.type === "toolCall" || b.type === "tool_use" || b.type === "toolUse") && typeof b.id === "string";
}

/** True when an assistant message calls a tool ({@link toolCallIdsOf} without building the list). */
export function hasToolCall(message: unknown): boolean {
  if (roleOf(message) !== "assistant") return false;
  const content = (message as LooseMessage | null)?.content;
  if (!Array.isArray(content)) return false;
  return content.some(isToolCallBlock);
}

/** The call id a tool result answers, if any. */
export function toolResultIdOf(message: unknown): string | undefined {
  if (roleOf(message) !== "toolResult") return undefined;
  const id = (message as LooseMessage).toolCallId;
  return typeof id === "string" ? id : undefined;
}

/**
 * True for a genuine user turn: any user message but the host's internal-context
 * carrier and the engine's own summary message. A user message whose parts were moved into the store (stubs) is still
 * the user's turn.
 */
export function isGenuineUserMessage(message: unknown): boolean {
  if (roleOf(message) !== "user" || isSummaryMessage(message)) return false;
  return !textOf(message).trimStart().startsWith(HOST_INTERNAL_CONTEXT_PREFIX);
}

/**
 * Short stable identity of a message. Tool results are identified by role,
 * call id and tool name, not text, so a result rewritten into a handle stub
 * keeps its identity; other messages by role and canonical content.
 */
export function fingerprintMessage(message: unknown): string {
  const h = createHash("sha256");
  const role = roleOf(message);
  h.update(role);
  h.update("\u0000");
  if (role === "toolResult") {
    const rec = message as LooseMessage;
    h.update(String(rec.toolCallId ?? ""));
    h.update("\u0000");
    h.update(String(rec.toolName ?? ""));
  } else {
    h.update(safeJson((message as LooseMessage | null)?.content));
  }
  return h.digest("hex").slice(0, 24);
}

/** JSON that never throws (cycles and BigInts become strings). */
export function safeJson(value: unknown): string {
  try {
    const seen = new WeakSet<object>();
    return (
      JSON.stringify(value, (_k, v: unknown) => {
        if (typeof v === "bigint") return v.toString();
        if (v && typeof v === "object") {
          if (seen.has(v)) return "[cycle]";
          seen.add(v);
        }
        return v;
      }) ?? ""
    );
  } catch {
    return String(value);
  }
}

/**
 * The newest conversational message (oldest first in `messages`) is a user's message with no answer yet: the host
 * runs maintain() before the turn it has just stored. A rewrite of the transcript then races the host's admission of
 * that message (2026.9.6 dropped it: "Persisted user turn changed before replay admission", every time an engine
 * adopted a session with raw history, and once in a served session): rewrites wait for the maintain() after it.
 */
export function awaitsAnswer(messages: readonly unknown[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = roleOf(messages[i]);
    if (role === "assistant" || role === "toolResult") return false;
    if (isGenuineUserMessage(messages[i])) return true;
  }
  return false;
}
