import { mtimeOrMissing } from "../fs/mtime.js";
import { sessionRoot } from "../state/paths.js";
import { errorMessage, isLedgerError } from "../errors.js";
import {
  countProblem,
  createSessionState,
  type StateProblemReporter,
  type SessionState,
} from "../state/session-state.js";
import { sessionStatePath, tryReadSessionState, updateSessionState } from "../state/session-file.js";

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
  update<T>(
    agentId: string,
    sessionKey: string,
    fn: (state: SessionState) => Promise<{ value: T; write: boolean }> | { value: T; write: boolean },
  ): Promise<T>;
  /** Applies `fn` to the cached state and schedules a coalesced write. */
  updateBehind(agentId: string, sessionKey: string, fn: (state: SessionState) => void): void;
  /** Waits for every scheduled write. */
  flush(): Promise<void>;
}

interface Entry {
  state: SessionState;
  mtimeMs: number;
  /** Write-behind updates applied to `state` and not yet handed to a write. */
  pending: ((state: SessionState) => void)[];
  /** The last queued disk job: every write of this file in this process runs after the one before. */
  tail: Promise<void> | undefined;
  /** A drain of `pending` is queued and has not started yet. */
  drainQueued: boolean;
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
  const entryOf = (agentId: string, sessionKey: string): Entry => {
    const file = fileOf(agentId, sessionKey);
    let entry = entries.get(file);
    if (!entry) {
      entry = {
        state: createSessionState(agentId, sessionKey),
        mtimeMs: -2,
        pending: [],
        tail: undefined,
        drainQueued: false,
      };
      entries.set(file, entry);
    }
    return entry;
  };

  // One queue per file: a locked update and a write-behind drain never interleave, so neither
  // replaces the cached state with a disk copy that lacks the other's changes.
  const enqueue = <T>(entry: Entry, job: () => Promise<T>): Promise<T> => {
    const run = (entry.tail ?? Promise.resolve()).then(job);
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    entry.tail = done;
    inflight.add(done);
    void done.then(() => {
      inflight.delete(done);
      if (entry.tail === done) entry.tail = undefined;
    });
    return run;
  };

  const read = async (agentId: string, sessionKey: string): Promise<SessionState> => {
    const file = fileOf(agentId, sessionKey);
    const cached = entries.get(file);
    // While our own writes are queued the cached state is the newest there is.
    if (cached && (cached.tail || cached.pending.length > 0)) return cached.state;
    const mtimeMs = mtimeOrMissing(file);
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
    const entry = entryOf(agentId, sessionKey);
    // A write queued while the file was read is newer than what was read: keep the cached state then.
    if (entry.tail || entry.pending.length > 0) return entry.state;
    entry.state = state;
    entry.mtimeMs = mtimeMs;
    return state;
  };

  const drain = (agentId: string, sessionKey: string, entry: Entry): void => {
    if (entry.drainQueued || entry.pending.length === 0) return;
    entry.drainQueued = true;
    const file = fileOf(agentId, sessionKey);
    void enqueue(entry, async () => {
      // Updates that arrive while this one writes queue a drain of their own.
      entry.drainQueued = false;
      const fns = entry.pending.splice(0);
      if (fns.length === 0) return;
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
      entry.mtimeMs = mtimeOrMissing(file);
    });
  };

  return {
    dir: dirOf,
    read,
    update(agentId, sessionKey, fn) {
      const file = fileOf(agentId, sessionKey);
      const entry = entryOf(agentId, sessionKey);
      return enqueue(entry, async () => {
        const value = await updateSessionState(
          file,
          () => createSessionState(agentId, sessionKey),
          async (state) => {
            const result = await fn(state);
            // Write-behind updates made meanwhile are on no disk copy yet: keep them on top, and let this
            // write carry them when it writes (applied once on disk, never again by their drain).
            for (const pendingFn of entry.pending) pendingFn(state);
            if (result.write) entry.pending.length = 0;
            entry.state = state;
            return result;
          },
          report,
        );
        entry.mtimeMs = mtimeOrMissing(file);
        return value;
      });
    },
    updateBehind(agentId, sessionKey, fn) {
      const entry = entryOf(agentId, sessionKey);
      fn(entry.state);
      entry.pending.push(fn);
      drain(agentId, sessionKey, entry);
    },
    async flush() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
  };
}
