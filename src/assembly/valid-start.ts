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
