import { promises as fsp } from "node:fs";
import { sessionRoot } from "../state/paths.js";
import { errorMessage, isLedgerError } from "../errors.js";
import {
  countProblem,
  createSessionState,
  type StateProblemReporter,
  sessionStatePath,
  tryReadSessionState,
  updateSessionState,
  type SessionState,
} from "../state/session-state.js";

/**
 * Session state, cached in process and persisted per session. Reads reuse the
 * parsed state while the file is unchanged; view updates (frontier, tally,
 * debt) are written behind, coalesced, so `assemble()` never waits on fsync.
 */
export interface SessionCache {
  /** Folder of a session's state. */
  dir(agentId: string, sessionKey: string): string;
  /** Current state (fresh when none exists or the file is corrupt). */
  read(agentId: string, sessionKey: string): Promise<SessionState>;
  /** Locked read-modify-write; used by commitTurn, compact and maintain. */
  update<T>(agentId: string, sessionKey: string, fn: (state: SessionState) => Promise<{ value: T; write: boolean }> | { value: T; write: boolean }): Promise<T>;
  /** Applies `fn` to the cached state and schedules a coalesced write. */
  updateBehind(agentId: string, sessionKey: string, fn: (state: SessionState) => void): void;
  /** Waits for every scheduled write. */
  flush(): Promise<void>;
}

interface Entry {
  state: SessionState;
  mtimeMs: number;
  pending: ((state: SessionState) => void)[];
  writing: Promise<void> | undefined;
}

/**
 * Creates the cache for one ledger root. `report` hears of every corrupt or
 * unreadable state file and every failed write (the engine logs them with
 * their code); each is also counted in the session's `problems`.
 */
export function createSessionCache(root: string, report: StateProblemReporter = () => {}): SessionCache {
  const entries = new Map<string, Entry>();
  const inflight = new Set<Promise<void>>();
  const dirOf = (agentId: string, sessionKey: string) => sessionRoot(root, agentId, sessionKey);
  const fileOf = (agentId: string, sessionKey: string) => sessionStatePath(dirOf(agentId, sessionKey));

  const read = async (agentId: string, sessionKey: string): Promise<SessionState> => {
    const file = fileOf(agentId, sessionKey);
    const cached = entries.get(file);
    // While our own writes are queued the cached state is the newest there is.
    if (cached && (cached.writing || cached.pending.length > 0)) return cached.state;
    const mtimeMs = await fsp.stat(file).then((s) => s.mtimeMs, () => -1);
    if (cached && cached.mtimeMs === mtimeMs) return cached.state;
    let state: SessionState | undefined;
    let problem: { code: string; message: string } | undefined;
    try {
      state = await tryReadSessionState(file);
    } catch (err) {
      // Said once per version of the file; the next locked update keeps a corrupt file aside and counts it on disk.
      problem = { code: isLedgerError(err) ? err.code : "io_failed", message: errorMessage(err) };
      if (cached?.mtimeMs !== mtimeMs) report({ ...problem, file });
    }
    state ??= createSessionState(agentId, sessionKey);
    if (problem) countProblem(state, problem);
    entries.set(file, { state, mtimeMs, pending: cached?.pending ?? [], writing: cached?.writing });
    return state;
  };

  const drain = (agentId: string, sessionKey: string, entry: Entry): void => {
    if (entry.writing || entry.pending.length === 0) return;
    const file = fileOf(agentId, sessionKey);
    const job = (async () => {
      while (entry.pending.length > 0) {
        const fns = entry.pending.splice(0);
        await updateSessionState(
          file,
          () => createSessionState(agentId, sessionKey),
          (state) => {
            for (const fn of fns) fn(state);
            return { value: undefined, write: true };
          },
          report,
        ).catch((err: unknown) => {
          // Not silent: logged with its code and counted (on disk with the next write that succeeds).
          const code = isLedgerError(err) ? err.code : ((err as NodeJS.ErrnoException).code ?? "io_failed");
          report({ code, file, message: `state write failed: ${errorMessage(err)}` });
          countProblem(entry.state, { code, message: `state write failed: ${errorMessage(err)}` });
        });
      }
      entry.mtimeMs = await fsp.stat(file).then((s) => s.mtimeMs, () => -1);
    })().finally(() => {
      entry.writing = undefined;
      inflight.delete(job);
    });
    entry.writing = job;
    inflight.add(job);
  };

  return {
    dir: dirOf,
    read,
    async update(agentId, sessionKey, fn) {
      const file = fileOf(agentId, sessionKey);
      const value = await updateSessionState(file, () => createSessionState(agentId, sessionKey), async (state) => {
        const result = await fn(state);
        const entry = entries.get(file);
        if (entry) entry.state = state;
        return result;
      }, report);
      const entry = entries.get(file);
      if (entry) entry.mtimeMs = await fsp.stat(file).then((s) => s.mtimeMs, () => -1);
      return value;
    },
    updateBehind(agentId, sessionKey, fn) {
      const file = fileOf(agentId, sessionKey);
      let entry = entries.get(file);
      if (!entry) {
        entry = { state: createSessionState(agentId, sessionKey), mtimeMs: -2, pending: [], writing: undefined };
        entries.set(file, entry);
      }
      fn(entry.state);
      entry.pending.push(fn);
      drain(agentId, sessionKey, entry);
    },
    async flush() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
  };
}
