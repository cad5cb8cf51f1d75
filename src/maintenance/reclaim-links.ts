/**
 * The reclaim's second name of a transcript's inode, `<transcript>.reclaim-<pid>-<ms>`, taken so that lines the host
 * appends during a reclaim land in it too. A reclaim removes its link when it ends; one killed before that leaves a
 * full copy of the transcript, and once the next reclaim replaces the transcript the link is the only name of the old
 * inode: superseded content (tool outputs the paydown moved to the store) would outlive the session. So every reclaim
 * and every maintain sweeps the links of the transcript's folder that no running reclaim can be using.
 */
import { isNotFound } from "../errors.js";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { isPidAlive } from "../host/session-lock.js";

/**
 * A link older than this is swept even when its pid runs (a pid reused by an unrelated process). No reclaim lasts
 * that long: a 32 MB transcript takes seconds. Sweeping a live reclaim's link anyway fails closed: that reclaim can
 * no longer read or open its link, throws, and leaves the transcript as it was.
 */
export const RECLAIM_LINK_MAX_AGE_MS = 15 * 60_000;

const LINK_NAME = /^.+\.jsonl\.reclaim-(\d+)-(\d+)$/;

/** The name of a reclaim's link to `file`, for this process at `now`. */
export function reclaimLinkName(file: string, now = Date.now()): string {
  return `${file}.reclaim-${process.pid}-${now}`;
}

/** Options for {@link sweepReclaimLinks}. */
export interface SweepReclaimLinksOptions {
  /** @default Date.now */
  now?: () => number;
  /** Whether a pid runs. @default a signal-0 probe */
  isAlive?: (pid: number) => boolean;
}

/**
 * Removes the reclaim links in `dir` whose process is gone, or that are older than {@link RECLAIM_LINK_MAX_AGE_MS}.
 * Resolves to the paths removed; a folder that does not exist has none. Links of this process are left to the
 * reclaim that made them (it removes its own when it ends).
 */
export async function sweepReclaimLinks(dir: string, options: SweepReclaimLinksOptions = {}): Promise<string[]> {
  const now = (options.now ?? Date.now)();
  const alive = options.isAlive ?? isPidAlive;
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = LINK_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const tooOld = now - Number(m[2]) > RECLAIM_LINK_MAX_AGE_MS;
    if (!tooOld && (pid === process.pid || alive(pid))) continue;
    const link = path.join(dir, name);
    await fsp.rm(link, { force: true });
    removed.push(link);
  }
  return removed;
}
