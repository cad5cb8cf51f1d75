import { errorMessage } from "../errors.js";
import type { LedgerLogger } from "../host/logger.js";
import type { EventLog } from "../state/event-log.js";

/** What the boundary needs to report a failure. */
export interface BoundaryDeps {
  logger: LedgerLogger;
  events: EventLog;
}

/** Which engine operation runs, and the context a failure is logged with. */
export interface GuardedOperation {
  op: string;
  context: Record<string, unknown>;
}

/**
 * Runs one engine operation so that no exception reaches the host (the host
 * would quarantine the engine for the whole gateway process): a failure is
 * logged with the operation and context, and `fallback(err)` gives the honest,
 * safe result instead.
 */
export async function guard<T>(
  deps: BoundaryDeps,
  { op, context }: GuardedOperation,
  run: () => Promise<T>,
  fallback: (err: unknown) => T | Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const where = Object.entries(context)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : "?"}`)
      .join(" ");
    deps.logger.error(`${op} failed ${where}: ${errorMessage(err)}`);
    void deps.events.write({ op: `${op}:error`, ...context, error: errorMessage(err) });
    try {
      return await fallback(err);
    } catch (fallbackErr) {
      // The fallback itself failed; there is nothing safer left to try than rethrowing.
      deps.logger.error(`${op} fallback failed: ${errorMessage(fallbackErr)}`);
      throw fallbackErr;
    }
  }
}
