import { isNotFound } from "../errors.js";
import { tryParseJson } from "../json.js";
import { promises as fsp } from "node:fs";

/** What the host's `<session file>.lock` says. */
export interface HostLockInfo {
  lockPath: string;
  /** Pid recorded by the holder, if any. */
  pid: number | null;
  /** True when that pid is a running process. */
  pidAlive: boolean;
  createdAt: string | null;
  /** True when a live process (or an unknown one) holds it. */
  held: boolean;
}

/** The host's lock path for a JSONL session file (2026.4.x session-write-lock). */
export function hostLockPath(sessionFile: string): string {
  return `${sessionFile}.lock`;
}

/**
 * Inspects the host's lock next to a session file; undefined when there is none.
 * A lock whose pid is dead is stale (the host reclaims those itself); a lock
 * without a readable pid counts as held, to be safe.
 */
export async function inspectHostLock(sessionFile: string): Promise<HostLockInfo | undefined> {
  const lockPath = hostLockPath(sessionFile);
  let text: string;
  try {
    text = await fsp.readFile(lockPath, "utf8");
  } catch (err) {
    if (isNotFound(err)) return undefined;
    return { lockPath, pid: null, pidAlive: false, createdAt: null, held: true };
  }
  let pid: number | null = null;
  let createdAt: string | null = null;
  // A half-written lock parses as nothing: treated as held below.
  const parsed = tryParseJson(text) as { pid?: unknown; createdAt?: unknown } | null | undefined;
  if (typeof parsed?.pid === "number" && Number.isInteger(parsed.pid) && parsed.pid > 0) pid = parsed.pid;
  if (typeof parsed?.createdAt === "string") createdAt = parsed.createdAt;
  const pidAlive = pid !== null && isPidAlive(pid);
  return { lockPath, pid, pidAlive, createdAt, held: pid === null || pidAlive };
}

/**
 * Takes the host's lock for the duration of `fn`, in the host's own format
 * (`{ pid, createdAt }`, created exclusively), so a gateway starting meanwhile
 * waits instead of appending to a file being replaced. Returns undefined
 * without running `fn` when someone else got the lock first.
 */
export async function withHostLock<T>(sessionFile: string, fn: () => Promise<T>): Promise<{ value: T } | undefined> {
  const lockPath = hostLockPath(sessionFile);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(lockPath, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw err;
  }
  try {
    await handle.writeFile(JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString() }, null, 2), "utf8");
    await handle.close();
    return { value: await fn() };
  } finally {
    await handle.close().catch(() => undefined);
    await fsp.rm(lockPath, { force: true });
  }
}

/** True when `pid` names a running process (one of another user's counts: signalling it is refused, not failed). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
