import { createHash } from "node:crypto";
import { safeJson } from "../json.js";

/**
 * A host message as the engine reads it: structurally, because hosts and
 * hostile callers send anything. The real shape is OpenClaw's `AgentMessage`.
 */
export type LooseMessage = Record<string, unknown> & { role?: unknown; content?: unknown };

/** Marker that starts every block the engine itself injects. */
export const LEDGER_MARKER = "[context-ledger";
/** First line of every summary block the engine renders (also inside a compaction entry it wrote). */
export const SUMMARY_OPEN = `${LEDGER_MARKER} summary]`;
/** The field that marks the session summary message the engine puts first in its view. */
const SUMMARY_MESSAGE_FIELD = "contextLedger";

/**
 * The session summary as the view's first message (a user message, marked). It travels in
 * the history rather than as a system prompt addition because hosts prepend an addition to
 * their system prompt (2026.9.6 `prependSystemPromptAddition`): a summary that changes at a
 * re-plan would also void the provider's cached system prompt. `timestamp` is the time of the newest message the
 * summary tells (2026.8.x and later stamp user messages with it: a summary stamped 0 read "1970-01-01"); taken from
 * the history, it stays the same while the summary does, so the message stays byte-identical.
 */
export function summaryMessage(text: string, timestamp = 0): LooseMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp, [SUMMARY_MESSAGE_FIELD]: "summary" };
}

/** A message's time in ms since the epoch (`timestamp` as a number or a date string), or undefined. */
export function timestampOf(message: unknown): number | undefined {
  const t = (message as LooseMessage | null)?.timestamp;
  const ms = typeof t === "number" ? t : typeof t === "string" ? Date.parse(t) : NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** True for a message made by {@link summaryMessage} (handed back inside a turn by hosts that keep the view). */
export function isSummaryMessage(message: unknown): boolean {
  return (message as Record<string, unknown> | null)?.[SUMMARY_MESSAGE_FIELD] === "summary";
}

/** Prefix of the user message 2026.9.x appends after tool results. */
export const HOST_INTERNAL_CONTEXT_PREFIX = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/** The date envelope 2026.4.24 stores at the front of a user message's text (`[Sat 2026-11-28 10:00 UTC] `). */
const HOST_DATE_ENVELOPE = /^\[[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?(?: [^\]\s]+)?\] /;
/** The prompt 2026.8.x writes for a runtime event, stored at the front of the next user message it joins. */
const HOST_RUNTIME_EVENT_PROMPT = /^Continue the OpenClaw runtime event\.\s*/;

/**
 * A user message's text without what the host put at its front (its date envelope, its runtime-event prompt): the
 * words the user wrote, for quoting. The message's time stays in its `timestamp`.
 */
export function withoutHostFraming(text: string): string {
  return text.replace(HOST_DATE_ENVELOPE, "").replace(HOST_RUNTIME_EVENT_PROMPT, "");
}

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

/** The chat command context-ledger registers: `/ledger status`, `/ledger view`, `/ledger fetch …`. */
export const LEDGER_COMMAND = "ledger";

// A user message as the host stores it may lead with envelope brackets (a timestamp, a channel tag). Anchored and
// matched in place (no trimmed copy): the check reads only a message's first characters.
const COMMAND_TEXT = new RegExp(String.raw`^\s*(?:\[[^\]\n]*\]\s*)*/${LEDGER_COMMAND}(?:\s|$)`);

const isCommandText = (text: string): boolean => COMMAND_TEXT.test(text);

/** True when `message` is a user's `/ledger …` command (the plugin answers it; the model never does). */
export function isLedgerCommand(message: unknown): boolean {
  return roleOf(message) === "user" && isCommandText(textOf(message));
}

function excludedByHost(message: unknown): boolean {
  return (message as { excludeFromContext?: unknown } | null)?.excludeFromContext === true;
}

/**
 * A user message without its `/ledger` commands: the message itself when it has none,
 * undefined when it holds nothing else. 2026.9.6 hands the engine consecutive commands
 * merged into one user message, a text block each (their replies removed between them).
 */
function withoutCommands(message: unknown): unknown {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return isCommandText(content) ? undefined : message;
  if (!Array.isArray(content)) return isLedgerCommand(message) ? undefined : message;
  // Every assemble walks the whole history: a message without a command costs no allocation.
  if (
    !content.some(
      (b) => typeof (b as { text?: unknown } | null)?.text === "string" && isCommandText((b as { text: string }).text),
    )
  )
    return message;
  const blocks = blocksOf(message);
  const kept = blocks.filter((b) => !(typeof b.text === "string" && isCommandText(b.text)));
  if (kept.every((b) => typeof b.text === "string" && b.text.trim() === "")) return undefined;
  return { ...(message as object), content: kept };
}

/**
 * The history without what was said to the operator, not the model, nor what the engine
 * itself put in an earlier view (its summary message, which 2026.9.x hands back inside a
 * turn): messages the host marks `excludeFromContext` (2026.9.x's own context-free commands), and each `/ledger`
 * command with the replies that follow it up to the next user message (assistant text
 * without tool calls: a command runs no model, so such text is the plugin's reply, which
 * 2026.9.6 stores as a `gateway-injected` assistant message). Status, view and fetch
 * replies are for the operator; shown to the model they would cost tokens each turn and
 * could carry fetched output the model never asked for. A command never starts a model
 * run, so it is never the live turn. Same objects and order otherwise.
 */
export function withoutOperatorMessages(messages: readonly unknown[]): unknown[] {
  // Every assemble walks the whole history, which almost never holds operator text: nothing is copied until the
  // first message that goes.
  let droppingReplies = false;
  let out: unknown[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const role = roleOf(m);
    let kept: unknown = m;
    if (excludedByHost(m) || isSummaryMessage(m)) kept = undefined;
    else if (role === "user") {
      kept = withoutCommands(m);
      droppingReplies = kept === undefined;
    } else {
      if (role !== "assistant" || hasToolCall(m)) droppingReplies = false;
      if (droppingReplies) kept = undefined;
    }
    if (kept === m) {
      out?.push(m);
      continue;
    }
    out ??= messages.slice(0, i);
    if (kept !== undefined) out.push(kept);
  }
  return out ?? (messages as unknown[]);
}

/** Name of the tool that produced a result ("unknown" when absent). */
export function toolNameOf(message: unknown): string {
  const name = message && typeof message === "object" ? (message as Record<string, unknown>).toolName : undefined;
  return typeof name === "string" && name ? name : "unknown";
}
