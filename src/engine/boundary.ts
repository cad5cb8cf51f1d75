import { errorMessage } from "../errors.js";
import type { LedgerLogger } from "../host/logger.js";
import { asParams, type HostParams, type SessionIdentity } from "../host/normalize.js";
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

/** One session call as an engine method receives it: its params and the session they name. */
export interface SessionCall {
  params: HostParams;
  identity: SessionIdentity;
}

/** What a session operation hands back: the host's answer and the fields its event adds. */
export interface SessionOutcome<T> {
  result: T;
  event: Record<string, unknown>;
}

/**
 * The one shape of an engine method about a session: its params normalised and its session resolved (`identify`),
 * the operation run behind {@link guard} (the failure logged with the session, the host line and the operation),
 * and its event written as `{ op, agentId, sessionKey, ...event }`.
 */
export function sessionMethods(
  deps: BoundaryDeps,
  hostLine: string,
  identify: (params: HostParams) => SessionIdentity,
) {
  return <T>(
      op: string,
      fallback: (err: unknown, call: SessionCall) => T,
      run: (call: SessionCall) => Promise<SessionOutcome<T>>,
    ) =>
    async (raw: unknown): Promise<T> => {
      const params = asParams(raw);
      const identity = identify(params);
      const context = { agent: identity.agentId, session: identity.sessionKey, host: hostLine, op };
      const write = ({ result, event }: SessionOutcome<T>): T => {
        void deps.events.write({ op, agentId: identity.agentId, sessionKey: identity.sessionKey, ...event });
        return result;
      };
      return guard(
        deps,
        { op, context },
        async () => write(await run({ params, identity })),
        (err) => fallback(err, { params, identity }),
      );
    };
}
