/**
 * Where clearing of old tool results starts: a pure walk over the messages, so the
 * window planner can place the boundary at a re-plan without knowing how a cleared
 * result is rendered (src/results/clear-tool-results.ts does that).
 */
import { roleOf } from "../host/messages.js";

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
