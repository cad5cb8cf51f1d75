/**
 * Captures still being written. The host fires `after_tool_call` without waiting for
 * it (`runAfterToolCall(...).catch(...)`), so the next assemble or commitTurn of the
 * same session may arrive while the original is still being stored: they wait here,
 * for a bounded time, so the stub they build can cite the capture.
 */

/** How long an engine call waits for a session's captures at most. */
export const CAPTURE_WAIT_MS = 5_000;

/** The session a capture belongs to, as the hook and the engine both name it. */
export interface PendingScope {
  sessionKey?: string;
  sessionId?: string;
}

/** Pending captures per session. */
export interface PendingCaptures {
  /** Registers a capture of `scope`; it is forgotten once it settles. */
  track(scope: PendingScope, job: Promise<unknown>): void;
  /**
   * Waits until every capture of `scope` registered so far has settled, or `timeoutMs`
   * passed. @returns how many were still running when the wait gave up (0 when all settled).
   */
  settle(scope: PendingScope, timeoutMs?: number): Promise<number>;
}

function keysOf(scope: PendingScope): string[] {
  return [scope.sessionKey && `key\u0000${scope.sessionKey}`, scope.sessionId && `id\u0000${scope.sessionId}`].filter(
    (k): k is string => typeof k === "string" && k.length > 0,
  );
}

/** Creates the per-runtime registry of pending captures. */
export function createPendingCaptures(): PendingCaptures {
  const bySession = new Map<string, Set<Promise<unknown>>>();
  return {
    track(scope, job) {
      const settled = job.then(
        () => undefined,
        () => undefined,
      );
      for (const key of keysOf(scope)) {
        let jobs = bySession.get(key);
        if (!jobs) bySession.set(key, (jobs = new Set()));
        jobs.add(settled);
        void settled.then(() => {
          jobs.delete(settled);
          if (jobs.size === 0 && bySession.get(key) === jobs) bySession.delete(key);
        });
      }
    },
    async settle(scope, timeoutMs = CAPTURE_WAIT_MS) {
      const jobs = new Set<Promise<unknown>>();
      for (const key of keysOf(scope)) for (const job of bySession.get(key) ?? []) jobs.add(job);
      if (jobs.size === 0) return 0;
      let left = jobs.size;
      for (const job of jobs) void job.then(() => left--);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref?.();
      });
      await Promise.race([Promise.all(jobs), timeout]);
      clearTimeout(timer);
      return left;
    },
  };
}
