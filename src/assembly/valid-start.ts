import { roleOf } from "../host/messages.js";

/**
 * A view never begins with an assistant or tool message (several providers reject a
 * conversation that opens with a tool call and no user turn before it). Drops kept
 * messages before the first kept user message; when none is kept (a tool loop whose
 * user message left the window), the newest user message before the window is put
 * back in front, so the turn keeps the question it answers.
 * @returns kept indices, ascending, starting at a user message when the history has one.
 */
export function startAtUserTurn(messages: readonly unknown[], kept: readonly number[]): number[] {
  if (kept.length === 0) return [];
  const first = kept[0] as number;
  if (roleOf(messages[first]) === "user") return [...kept];
  const userAt = kept.findIndex((i) => roleOf(messages[i]) === "user");
  if (userAt > 0) return kept.slice(userAt);
  for (let i = first - 1; i >= 0; i--) {
    if (roleOf(messages[i]) === "user") return [i, ...kept];
  }
  return [...kept];
}

/**
 * The host's own compaction summary leads what it loads after a compaction it recorded
 * (2026.4.x: `compactionSummary`, the turns before the kept ones told in short). A window
 * that starts after it still shows it first: it is the only telling of those turns in
 * the prompt (the engine's own summary starts afresh with the shorter transcript), and
 * it fits the room reserved for a summary.
 */
export function withHostSummaryFirst(messages: readonly unknown[], kept: readonly number[]): number[] {
  if (kept.length === 0 || kept[0] === 0 || roleOf(messages[0]) !== "compactionSummary") return [...kept];
  return [0, ...kept];
}
