import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { isLedgerError } from "../../src/errors.js";
import { withFileLock } from "../../src/fs/lock.js";
import { killWorker, startWorker, waitForFile } from "../support/worker-process.js";

const HOLDER = fileURLToPath(new URL("./workers/lock-holder.mjs", import.meta.url));

/**
 * A process takes `file`'s lock and is SIGKILLed while holding it. Right after
 * the kill the lock is still honoured (a short wait times out); after the
 * stale timeout another taker gets it. Returns the ms from kill to recovery.
 */
export async function killHolderAndRecover(options: {
  staleMs?: number;
  lockFile?: (dir: string) => string;
  recover: (file: string) => Promise<void>;
}): Promise<number> {
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-stale-"));
  const file = options.lockFile?.(tmp) ?? path.join(tmp, "state.json.lock");
  const marker = path.join(tmp, "holding");
  const holder = startWorker(HOLDER, { file, marker, staleMs: options.staleMs });
  try {
    expect(await waitForFile(marker, 20_000), `the holder never took the lock: ${holder.stderr()}`).toBe(true);
    await killWorker(holder);
    expect((await holder.exited).signal).toBe("SIGKILL");
    const early = await withFileLock(file, async () => "taken", { staleMs: options.staleMs, timeoutMs: 200 }).catch(
      (err: unknown) => err,
    );
    expect(isLedgerError(early, "lock_timeout"), "the dead holder's lock was ignored at once").toBe(true);
    const killedAt = Date.now();
    await options.recover(file);
    return Date.now() - killedAt;
  } finally {
    await killWorker(holder);
    await fsp.rm(tmp, { recursive: true, force: true });
  }
}
