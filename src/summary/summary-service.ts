/**
 * The one summary pipeline: open the conversation's sidecar, reconcile it with the
 * transcript (rewinds, branches, host rewrites; restoring from a checkpoint pack
 * where the record says so), extend it up to a message index with bounded catch-up,
 * and save it. Assembly and compaction both go through here, so a summary is
 * brought up to date the same way whoever asks.
 */
import { fingerprintMessage } from "../host/messages.js";
import { restoreFromCheckpointPack } from "./checkpoint.js";
import { extendSummary } from "./extend-summary.js";
import { opensAfterCoverage, reconcileSummary } from "./reconcile.js";
import { readdirSync } from "node:fs";
import path from "node:path";
import { mtimeOrMissing } from "../fs/mtime.js";
import type { VersionedCache } from "../fs/versioned-cache.js";
import { loadSummary, saveSummary, tryLoadSummary } from "./sidecar.js";
import { conversationEpoch, summaryPath } from "./summary-epoch.js";
import { createSummaryState, type SummaryState } from "./summary-state.js";
import { alignUserTurns, showsKnownUser, type AlignedUserTurns } from "./user-turns.js";

/** Most dropped messages summarised in one call; older ones are counted, not read (bounded work per turn). */
export const MAX_SUMMARY_CATCH_UP = 2_000;

/** One conversation's sidecar, as opened. */
export interface OpenedSummary {
  /** The sidecar file of this conversation epoch. */
  file: string;
  epoch: string;
  /** The record read, or a fresh one. */
  state: SummaryState;
  /** The sidecar exists but could not be read: it is kept as is and must not be overwritten. */
  readFailed: boolean;
}

/** Options for {@link openSummary}. */
export interface OpenSummaryOptions {
  /** The session's state folder. */
  sessionDir: string;
  /** The conversation (its first genuine user message names the epoch). */
  messages: readonly unknown[];
  /** Called once per failed read with the error's code and message (log it, count it). */
  onReadError?: (code: string, message: string) => void;
  /** A record already in memory for this file (a cache), used instead of reading. */
  cached?: SummaryState;
  /** The epoch when the caller resolved it already (see {@link continuedEpoch}). */
  epoch?: string;
}

/**
 * Opens the sidecar of the conversation's epoch. A missing file is a fresh record; an unreadable one is reported and
 * left alone.
 */
export async function openSummary(options: OpenSummaryOptions): Promise<OpenedSummary> {
  const epoch = options.epoch ?? (await continuedEpoch(options.sessionDir, options.messages));
  const file = summaryPath(options.sessionDir, epoch);
  if (options.cached) return { file, epoch, state: options.cached, readFailed: false };
  try {
    return { file, epoch, state: await loadSummary(file), readFailed: false };
  } catch (err) {
    // Only a missing file is a fresh summary (not isNotFound): a file where the session folder should be is a
    // problem to report.
    if ((err as { cause?: NodeJS.ErrnoException }).cause?.code === "ENOENT")
      return { file, epoch, state: createSummaryState(epoch), readFailed: false };
    const code = typeof (err as { code?: unknown }).code === "string" ? (err as { code: string }).code : "io_failed";
    options.onReadError?.(code, (err as Error).message);
    return { file, epoch, state: createSummaryState(epoch), readFailed: true };
  }
}

/** A conversation epoch and its sidecar as found on disk. */
export interface EpochSidecar {
  epoch: string;
  file: string;
  /** The sidecar's mtime, or -1 when it does not exist yet. */
  mtimeMs: number;
}

/**
 * The epoch whose sidecar this transcript continues: normally its first genuine
 * user message (see `conversationEpoch`). A host that passes only a tail of a long
 * transcript (2026.9.6 drops whole turns from the front) shows a different first
 * message every turn while the conversation goes on; then the newest sidecar whose
 * covered frontier message the transcript still shows is the same conversation.
 * A reset shows none of it and starts a new epoch.
 */
export async function continuedEpoch(sessionDir: string, messages: readonly unknown[]): Promise<string> {
  return (await findEpochSidecar(sessionDir, messages)).epoch;
}

/**
 * Parsed sidecar records by file version. 2026.9.6 slides the transcript's front every turn and
 * assembles three times per request, so the newest sidecar is looked up on most calls of a long
 * session: a caller on that path passes one (owned by its runtime) to parse each version once.
 */
export type SidecarRecords = VersionedCache<SummaryState>;

/**
 * {@link continuedEpoch} with the sidecar's path and mtime (one `stat` when the transcript shows its first message).
 */
export async function findEpochSidecar(
  sessionDir: string,
  messages: readonly unknown[],
  records?: SidecarRecords,
): Promise<EpochSidecar> {
  const epoch = conversationEpoch(messages);
  const candidate = {
    epoch,
    file: summaryPath(sessionDir, epoch),
    mtimeMs: mtimeOrMissing(summaryPath(sessionDir, epoch)),
  };
  if (epoch === "empty" || candidate.mtimeMs >= 0) return candidate;
  const newest = newestSidecar(sessionDir);
  // An unreadable sidecar continues nothing: the candidate epoch starts afresh, and its own open reports problems.
  const record =
    newest && newest.mtimeMs >= 0
      ? await (records
          ? records(newest.file, newest.mtimeMs, () => tryLoadSummary(newest.file))
          : tryLoadSummary(newest.file))
      : undefined;
  if (!newest || !record?.coveredFingerprint || record.epoch === epoch) return candidate;
  const continues =
    messages.some((m) => fingerprintMessage(m) === record.coveredFingerprint) ||
    showsKnownUser(record.users ?? [], messages) ||
    opensAfterCoverage(record, messages);
  return continues ? { epoch: record.epoch, ...newest } : candidate;
}

/** The session folder's most recently written summary sidecar, if any (a listing and a stat per sidecar). */
export function newestSidecar(sessionDir: string): { file: string; mtimeMs: number } | undefined {
  let names: string[];
  try {
    names = readdirSync(sessionDir);
  } catch {
    return undefined;
  }
  let best: { file: string; mtimeMs: number } | undefined;
  for (const name of names) {
    if (!/^summary-[0-9a-z]+\.json$/.test(name)) continue;
    const file = path.join(sessionDir, name);
    const mtimeMs = mtimeOrMissing(file);
    if (!best || mtimeMs > best.mtimeMs) best = { file, mtimeMs };
  }
  return best;
}

/** What {@link bringSummaryUpTo} made: the record, and its user messages aligned with the list. */
export interface BroughtSummary {
  state: SummaryState;
  users: AlignedUserTurns;
}

/** Reads a checkpoint pack by handle, or undefined when it cannot be read. */
export type PackReader = (handle: string) => Promise<string | undefined>;

/**
 * Reconciles `state` with `messages` (restoring from a checkpoint pack when the
 * record points at one) and extends it to cover messages before `target`, reading
 * at most {@link MAX_SUMMARY_CATCH_UP} of them.
 */
export async function bringSummaryUpTo(
  state: SummaryState,
  messages: readonly unknown[],
  target: number,
  readPack: PackReader,
): Promise<BroughtSummary> {
  const users = alignUserTurns(state.users ?? [], messages);
  const reconciled = reconcileSummary(state, messages);
  let next: SummaryState = { ...reconciled.state, users: users.turns };
  if (reconciled.restoreFrom) {
    const pack = await readPack(reconciled.restoreFrom.handle).catch(() => undefined);
    if (pack !== undefined) next = { ...restoreFromCheckpointPack(pack, reconciled.restoreFrom), users: users.turns };
  }
  const upTo = Math.min(target, messages.length);
  if (upTo <= next.coveredCount) return { state: next, users };
  if (upTo - next.coveredCount > MAX_SUMMARY_CATCH_UP) {
    next = {
      ...next,
      coveredCount: upTo - MAX_SUMMARY_CATCH_UP,
      coveredFingerprint: fingerprintMessage(messages[upTo - MAX_SUMMARY_CATCH_UP - 1]),
    };
  }
  return { state: extendSummary(next, messages, upTo, users.turnAt), users };
}

/** Saves the record unless its sidecar could not be read (an unreadable file is kept for inspection). */
export async function saveOpenedSummary(opened: OpenedSummary, state: SummaryState): Promise<boolean> {
  if (opened.readFailed) return false;
  await saveSummary(opened.file, state);
  return true;
}

/** A stable key of what a record covers (to tell whether it changed). */
export function summaryKey(state: SummaryState): string {
  return JSON.stringify([state.coveredCount, state.coveredFingerprint, state.checkpoints.length]);
}
