import { statSync } from "node:fs";

/**
 * A file's mtime in ms, or -1 when it is missing or cannot be stat'ed. Synchronous on purpose: the freshness checks
 * of a warm assemble call it, and a stat costs microseconds, while an awaited one hands the event loop to every other
 * session of the gateway (with ten at once on 2 cores, tens of milliseconds before the assemble resumes).
 */
export function mtimeOrMissing(file: string): number {
  try {
    return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  } catch {
    return -1;
  }
}
