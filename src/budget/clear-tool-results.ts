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

/** Inputs of {@link clearBoundary}. */
export interface ClearBoundaryOptions {
  /** Tool results kept in full, newest first. */
  keepToolResults: number;
  /** True for tools whose results are never cleared (counted out of the last N too). */
  excluded: (toolName: string) => boolean;
  /** Index of the newest genuine user message: nothing from there on is cleared (the model is using it). */
  newestUser: number;
}

/**
 * Index before which results are cleared: everything older than the
 * `keepToolResults`-th newest clearable tool result, and never inside the
 * current turn. -1 when nothing is old enough. Walks back from the end.
 */
export function clearBoundary(messages: readonly unknown[], options: ClearBoundaryOptions): number {
  if (options.newestUser <= 0) return -1;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (roleOf(m) !== "toolResult" || options.excluded(toolNameOf(m))) continue;
    if (seen === options.keepToolResults) return Math.min(i + 1, options.newestUser);
    seen++;
  }
  return -1;
}

/** Name of the tool that produced a result ("unknown" when absent). */
export function toolNameOf(message: unknown): string {
  const name = message && typeof message === "object" ? (message as Record<string, unknown>).toolName : undefined;
  return typeof name === "string" && name ? name : "unknown";
}

/** Chars of a stub's summary kept in a placeholder at most. */
export const CLEARED_SUMMARY_CHARS = 400;

/**
 * Text of the placeholder a cleared tool result carries: what it was, its stub's summary, and where the original is.
 */
export function clearedResultText(
  toolName: string,
  originalChars: number,
  handle: string | undefined,
  summary = "",
): string {
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

/** Tool-name matcher for names and globs (`*` any run, `?` one character). */
export function toolMatcher(patterns: readonly string[]): (toolName: string) => boolean {
  if (patterns.length === 0) return () => false;
  const res = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
        "s",
      ),
  );
  return (name) => res.some((r) => r.test(name));
}
