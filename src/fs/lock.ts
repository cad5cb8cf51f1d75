import { promises as fsp } from "node:fs";
import lockfile from "proper-lockfile";
import { LedgerError } from "../errors.js";
import { ensureDir, FILE_MODE } from "./atomic-write.js";
import path from "node:path";

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

// Process-wide on purpose: two runtimes of one process (two configs) writing the same file must queue too.
const inProcess = new Map<string, Promise<unknown>>();

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
      release = await lockfile.lock(file, { stale: staleMs, realpath: false, update: Math.max(1000, staleMs / 2) });
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
