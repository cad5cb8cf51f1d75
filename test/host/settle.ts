import type { PluginEvent } from "./logs.js";

/** Options for {@link pollUntil} and {@link waitForEvents}. */
export interface WaitForEventsOptions {
  /** Give up (and return what was read) after this long. @default 30000 */
  timeoutMs?: number;
  /** Poll interval. @default 100 */
  intervalMs?: number;
}

/**
 * Polls `read` until `done` holds for what it returns, or until the timeout; returns the
 * last read either way, so the caller's assertion says what was missing. A condition,
 * not a fixed quiet period.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: WaitForEventsOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/**
 * {@link pollUntil} over the engine's events: the engine's post-turn work, e.g. `maintain`
 * after `commitTurn`, can land just after `agent.wait` answers.
 */
export async function waitForEvents(
  read: () => Promise<PluginEvent[]>,
  done: (events: PluginEvent[]) => boolean,
  options: WaitForEventsOptions = {},
): Promise<PluginEvent[]> {
  return pollUntil(read, done, options);
}

/**
 * The engine's work on the turn is over: `maintain` or `dispose` logged after the last
 * `afterTurn` / `commitTurn`. (2026.4.24 keeps the session busy with this after
 * `agent.wait` answers; a message sent meanwhile is queued as a follow-up.)
 */
export function engineTurnSettled(events: readonly PluginEvent[]): boolean {
  const ops = events.map((e) => e.op);
  const last = Math.max(ops.lastIndexOf("afterTurn"), ops.lastIndexOf("commitTurn"));
  return last >= 0 && ops.slice(last + 1).some((op) => op === "maintain" || op === "dispose");
}
