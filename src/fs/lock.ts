import { promises as fsp } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type ProperLockfile from "proper-lockfile";
import { LedgerError } from "../errors.js";
import { ensureDir, FILE_MODE } from "./atomic-write.js";
import { processWideKey } from "../version.js";

/** Options for {@link withFileLock}. */
export interface WithFileLockOptions {
  /**
   * A lock older than this is considered abandoned (its holder died) and is taken over.
   * @default 10000
   */
  staleMs?: number;
  /**
   * How long to wait for the lock before failing with `lock_timeout`.
   * @default 30000
   */
  timeoutMs?: number;
}

interface SharedLocks {
  lockfile: typeof ProperLockfile;
  /** The queue per file: two runtimes of one process (two configs, two module copies) must queue too. */
  inProcess: Map<string, Promise<unknown>>;
}

// Process-wide, across copies of this module: the host evaluates the plugin afresh on each hot reload (2026.9.6:
// two copies per reload, dependencies included), and every evaluation of proper-lockfile adds signal-exit's
// handlers to the process, one per signal, until Node warns MaxListenersExceeded.
const SHARED = processWideKey("file-locks");

function sharedLocks(): SharedLocks {
  const g = globalThis as { [SHARED]?: SharedLocks };
  g[SHARED] ??= {
    lockfile: createRequire(import.meta.url)("proper-lockfile") as typeof ProperLockfile,
    inProcess: new Map(),
  };
  return g[SHARED];
}

/**
 * Runs `fn` while holding an exclusive lock on `file`: serialized within this
 * process by a promise chain, and across processes by proper-lockfile.
 * The file is created (0600, empty) if missing, because proper-lockfile locks existing paths.
 */
export async function withFileLock<T>(
  file: string,
  fn: () => Promise<T>,
  options: WithFileLockOptions = {},
): Promise<T> {
  const key = path.resolve(file);
  const { inProcess } = sharedLocks();
  const previous = inProcess.get(key) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => lockAndRun(key, fn, options));
  const tail = run.catch(() => undefined);
  inProcess.set(key, tail);
  try {
    return await run;
  } finally {
    if (inProcess.get(key) === tail) inProcess.delete(key);
  }
}

async function lockAndRun<T>(file: string, fn: () => Promise<T>, options: WithFileLockOptions): Promise<T> {
  const staleMs = options.staleMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  await ensureDir(path.dirname(file));
  const fh = await fsp.open(file, "a", FILE_MODE);
  await fh.close();
  const deadline = Date.now() + timeoutMs;
  let release: (() => Promise<void>) | undefined;
  let delay = 5;
  for (;;) {
    try {
      release = await sharedLocks().lockfile.lock(file, {
        stale: staleMs,
        realpath: false,
        update: Math.max(1000, staleMs / 2),
      });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
      if (Date.now() >= deadline) {
        throw new LedgerError(
          "lock_timeout",
          `Expected the lock on \`${file}\` within ${timeoutMs} ms, got it still held`,
          {
            cause: err,
          },
        );
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(100, delay * 2);
    }
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
