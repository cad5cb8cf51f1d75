/**
 * Cache-aware clearing of old tool results (the idea of Anthropic's
 * `clear_tool_uses` and Claude Code's clearing): at a re-plan, which breaks the
 * provider's prompt cache anyway, tool results older than the last N are
 * replaced in one step by a short placeholder that keeps the artifact handle
 * of an offloaded output (the model fetches the original with `ledger_fetch`)
 * or says a small inline one can be rerun, and old
 * thinking blocks are dropped. The boundary then stays fixed until the next
 * re-plan, so every prompt in between is a pure extension of the one before.
 */
import { blocksOf, LEDGER_MARKER, roleOf } from "../host/messages.js";
import { toolNameOf } from "../host/messages.js";

/** Chars of a stub's summary kept in a placeholder at most. */
const CLEARED_SUMMARY_CHARS = 400;

/**
 * Text of the placeholder a cleared tool result carries: what it was, its stub's summary, and where the original is.
 */
function clearedResultText(toolName: string, originalChars: number, handle: string | undefined, summary = ""): string {
  const size = `${originalChars.toLocaleString("en-US")} chars`;
  const gist = summary
    ? `\n${summary.length > CLEARED_SUMMARY_CHARS ? `${summary.slice(0, CLEARED_SUMMARY_CHARS)}…` : summary}`
    : "";
  return handle
    ? `${LEDGER_MARKER} cleared] Older ${toolName} result (${size}) cleared from the prompt, stored losslessly.${gist}\nFetch slices: ledger_fetch {"handle":"${handle}"}`
    : `${LEDGER_MARKER} cleared] Older ${toolName} result (${size}) cleared from the prompt; rerun the tool if you need it again.${gist}`;
}

/** The summary lines of an artifact stub (between its first line and the preview or fetch hint), or "". */
export function stubSummaryOf(stubText: string): string {
  const lines = stubText.split("\n");
  const out: string[] = [];
  for (const line of lines.slice(1)) {
    if (line.startsWith("--- preview") || line.startsWith("Full output stored")) break;
    out.push(line);
  }
  return out.join("\n").trim();
}

/**
 * The message with its text replaced by {@link clearedResultText}; role, ids,
 * tool name and details stay, so the pairing with its call is unchanged.
 */
export function clearToolResult(
  message: unknown,
  handle: string | undefined,
  originalChars: number,
  summary = "",
): unknown {
  if (!message || typeof message !== "object" || roleOf(message) !== "toolResult") return message;
  const rec = message as Record<string, unknown>;
  return {
    ...rec,
    content: [{ type: "text", text: clearedResultText(toolNameOf(message), originalChars, handle, summary) }],
  };
}

/** The assistant message without its thinking blocks (unchanged when it has none, or nothing else). */
export function stripThinking(message: unknown): unknown {
  if (roleOf(message) !== "assistant" || !message || typeof message !== "object") return message;
  const blocks = blocksOf(message);
  const rest = blocks.filter((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
  if (rest.length === blocks.length || rest.length === 0) return message;
  return { ...(message as Record<string, unknown>), content: rest };
}

/** Chars of a message's text blocks. */
export function textChars(message: unknown): number {
  return blocksOf(message).reduce((s, b) => s + (typeof b.text === "string" ? b.text.length : 0), 0);
}
