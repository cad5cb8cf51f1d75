import { isGenuineUserMessage, roleOf, toolCallIdsOf, toolResultIdOf } from "../host/messages.js";

/**
 * An atomic slice of history `[start, end)`: a single message, or an assistant
 * tool-call message with exactly the results that answer it. `valid: false`
 * units (orphan results, calls without results) are never sent to the model.
 */
export interface Unit {
  start: number;
  end: number;
  valid: boolean;
}

/**
 * The unit that ends at `end` (exclusive), found by walking backwards. Cost is
 * the unit's length, so a newest-first walk costs what it visits, not the history.
 */
export function unitEndingAt(messages: readonly unknown[], end: number): Unit {
  const last = end - 1;
  const lastRole = roleOf(messages[last]);
  if (lastRole === "toolResult") {
    let i = last;
    const resultIds = new Set<string>();
    let anonymous = false;
    while (i >= 0 && roleOf(messages[i]) === "toolResult") {
      const id = toolResultIdOf(messages[i]);
      if (id === undefined) anonymous = true;
      else resultIds.add(id);
      i--;
    }
    const owner = i >= 0 ? messages[i] : undefined;
    const callIds = toolCallIdsOf(owner);
    if (callIds.length === 0) return { start: i + 1, end, valid: false };
    const complete = !anonymous && callIds.length === resultIds.size && callIds.every((id) => resultIds.has(id));
    return { start: i, end, valid: complete };
  }
  if (lastRole === "assistant" && toolCallIdsOf(messages[last]).length > 0) {
    return { start: last, end, valid: false };
  }
  return { start: last, end, valid: true };
}

/** Index of the newest genuine user message, or -1. Walks back from the end. */
export function newestUserIndex(messages: readonly unknown[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isGenuineUserMessage(messages[i])) return i;
  }
  return -1;
}

/** True when `index` starts a unit (a replanned window may begin there). */
export function isUnitBoundary(messages: readonly unknown[], index: number): boolean {
  if (index <= 0 || index >= messages.length) return index === 0 || index === messages.length;
  return roleOf(messages[index]) !== "toolResult";
}
