import { LRUCache } from "lru-cache";
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

/** Sessions whose state the cache keeps in memory at most (besides those with a write in flight). */
const MAX_CACHED_SESSIONS = 512;

/**
 * Session state, cached in process and persisted per session. Reads reuse the
 * parsed state while the file is unchanged; view updates (frontier, tally,
 * debt) are written behind, coalesced, so `assemble()` never waits on fsync.
 * The least recently used sessions leave memory past a bound (a gateway that
 * runs a session per cron job or subagent would grow without one); what is
 * only in memory (write-behind updates not yet written) keeps a session in
 * until it is on disk, so an evicted session reads back whole.
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
  /** Sessions held in memory: at most the bound, plus those whose writes are still under way. */
  cachedSessions(): number;
}

/** Options for {@link createSessionCache}. */
export interface SessionCacheOptions {
  /** Sessions kept in memory at most; the least recently used leave first. @default MAX_CACHED_SESSIONS */
  maxSessions?: number;
}

interface Entry {
  /** The state file: the entry's key. */
  file: string;
  state: SessionState;
  /** `state` holds the disk copy (read, or written by this cache), not only write-behind updates on a fresh state. */
  loaded: boolean;
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
export function createSessionCache(
  root: string,
  report: StateProblemReporter = () => {},
  options: SessionCacheOptions = {},
): SessionCache {
  // An entry evicted while it has updates not yet on disk waits here until they are; a lookup brings it back.
  const parked = new Map<string, Entry>();
  const busy = (entry: Entry): boolean => entry.tail !== undefined || entry.pending.length > 0;
  const entries = new LRUCache<string, Entry>({
    max: options.maxSessions ?? MAX_CACHED_SESSIONS,
    dispose: (entry, file, reason) => {
      if (reason === "evict" && busy(entry)) parked.set(file, entry);
    },
  });
  const inflight = new Set<Promise<void>>();
  const dirOf = (agentId: string, sessionKey: string) => sessionRoot(root, agentId, sessionKey);
  const fileOf = (agentId: string, sessionKey: string) => sessionStatePath(dirOf(agentId, sessionKey));
  const lookup = (file: string): Entry | undefined => {
    const cached = entries.get(file);
    if (cached) return cached;
    const back = parked.get(file);
    if (back) {
      parked.delete(file);
      entries.set(file, back);
    }
    return back;
  };
  const entryOf = (agentId: string, sessionKey: string): Entry => {
    const file = fileOf(agentId, sessionKey);
    let entry = lookup(file);
    if (!entry) {
      entry = {
        file,
        state: createSessionState(agentId, sessionKey),
        loaded: false,
        mtimeMs: -2,
        pending: [],
        tail: undefined,
        drainQueued: false,
      };
      entries.set(file, entry);
    }
    return entry;
  };
  const unpark = (entry: Entry): void => {
    if (!busy(entry) && parked.get(entry.file) === entry) parked.delete(entry.file);
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
      unpark(entry);
    });
    return run;
  };

  const read = async (agentId: string, sessionKey: string): Promise<SessionState> => {
    const file = fileOf(agentId, sessionKey);
    let cached = lookup(file);
    // Write-behind updates made on a fresh state (the session was evicted, or never read) are not the session's
    // state: wait until they are on disk, where the drain makes the entry whole.
    while (cached && !cached.loaded && cached.tail) {
      await cached.tail;
      cached = lookup(file);
    }
    // While our own writes are queued the cached state is the newest there is.
    if (cached?.loaded && busy(cached)) return cached.state;
    const mtimeMs = mtimeOrMissing(file);
    if (cached?.loaded && cached.mtimeMs === mtimeMs) return cached.state;
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
    if (entry.tail) {
      // A write queued while the file was read is newer than what was read: keep the cached state then.
      if (entry.loaded) return entry.state;
      return read(agentId, sessionKey);
    }
    // Updates not yet written (a failed write keeps them) go on top of what the disk holds.
    for (const fn of entry.pending) fn(state);
    entry.state = state;
    entry.loaded = true;
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
      let written: SessionState | undefined;
      await updateSessionState(
        file,
        () => createSessionState(agentId, sessionKey),
        (state) => {
          for (const fn of fns) fn(state);
          written = state;
          return { value: undefined, write: true };
        },
        report,
      ).catch((err: unknown) => {
        // Not silent: logged with its code, and counted on disk with the updates it failed to write, which stay
        // pending (in memory, never evicted) until a later write carries them.
        const code = isLedgerError(err) ? err.code : ((err as NodeJS.ErrnoException).code ?? "io_failed");
        const message = `state write failed: ${errorMessage(err)}`;
        report({ code, file, message });
        const counted = (state: SessionState) => countProblem(state, { code, message });
        counted(entry.state);
        entry.pending.unshift(...fns, counted);
        written = undefined;
      });
      if (written && !entry.loaded) {
        // The entry held write-behind updates on a fresh state: the state written is the session's, with the
        // updates made since on top.
        for (const fn of entry.pending) fn(written);
        entry.state = written;
        entry.loaded = true;
      }
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
            entry.loaded = true;
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
    cachedSessions: () => entries.size + parked.size,
  };
}
