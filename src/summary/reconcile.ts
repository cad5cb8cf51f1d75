import { createSummaryState, messageFingerprint, type CheckpointRef, type SummaryState } from "./summary-state.js";

/** Why {@link reconcileSummary} answered as it did. */
export type ReconcileReason = "consistent" | "front_dropped" | "transcript_shorter" | "transcript_diverged";

/** Answer of {@link reconcileSummary}. */
export interface ReconcileResult {
  /** The consistent state: unchanged, or rolled back to a point the transcript still matches. */
  state: SummaryState;
  /** True when the summary had to be rolled back (the engine then re-extends). */
  rolledBack: boolean;
  /** What was found. */
  reason: ReconcileReason;
  /**
   * Set when the newest matching point is a sealed checkpoint older than the
   * folded digest: `state` is then empty, and the engine may restore the
   * pack's summary record instead (see `restoreFromCheckpointPack`) before re-extending.
   */
  restoreFrom?: CheckpointRef;
}

/**
 * Checks the summary against the transcript the host shows now. When the
 * transcript is shorter than what was covered or its message at
 * `coveredCount - 1` no longer fingerprints the same (host rewrite, rewind,
 * branch switch, overflow truncation), rolls back to the newest point that
 * still matches: an entry boundary, the digest boundary, a checkpoint, or
 * empty. Tool results fingerprint by call id and tool name, so paydown
 * rewriting a result into a handle stub never triggers a rollback.
 * Cost: one fingerprint when consistent; one per candidate walked otherwise.
 */
export function reconcileSummary(state: SummaryState, messages: readonly unknown[]): ReconcileResult {
  const n = messages.length;
  if (state.coveredCount === 0) return { state, rolledBack: false, reason: "consistent" };
  const matches = (count: number, fingerprint: string | null): boolean =>
    count === 0 || (count <= n && fingerprint !== null && messageFingerprint(messages[count - 1]) === fingerprint);
  if (matches(state.coveredCount, state.coveredFingerprint)) return { state, rolledBack: false, reason: "consistent" };
  const shift = frontDropped(state, messages);
  if (shift > 0) return { state: shiftSummary(state, shift), rolledBack: false, reason: "front_dropped" };
  const reason: ReconcileReason = n < state.coveredCount ? "transcript_shorter" : "transcript_diverged";

  for (let k = state.entries.length - 1; k >= 0; k--) {
    const e = state.entries[k]!;
    if (e.to <= n && matches(e.to, e.endFingerprint)) {
      return { state: rollTo(state, e.to, e.endFingerprint, k + 1), rolledBack: true, reason };
    }
  }
  const digest = state.digest;
  if (digest.to > 0 && matches(digest.to, digest.endFingerprint)) {
    return { state: rollTo(state, digest.to, digest.endFingerprint, 0), rolledBack: true, reason };
  }
  const empty = emptyLike(state);
  for (let k = state.checkpoints.length - 1; k >= 0; k--) {
    const cp = state.checkpoints[k]!;
    if (cp.coveredCount > 0 && cp.coveredCount < digest.to && matches(cp.coveredCount, cp.fingerprint)) {
      return { state: empty, rolledBack: true, reason, restoreFrom: cp };
    }
  }
  return { state: empty, rolledBack: true, reason };
}

/**
 * How many messages the host dropped from the front, when the covered frontier
 * message still exists lower down, or the list opens with the message after it
 * (2026.9.6 passes only a tail of a long transcript): everything covered is still
 * true, only its indices moved. 0 when neither is found.
 */
function frontDropped(state: SummaryState, messages: readonly unknown[]): number {
  if (!state.coveredFingerprint) return 0;
  // Messages of equal content fingerprint alike: where the record knows what followed its end, that must follow too.
  const followed = (i: number): boolean =>
    !state.nextFingerprint || i + 1 >= messages.length || messageFingerprint(messages[i + 1]) === state.nextFingerprint;
  for (let i = Math.min(state.coveredCount - 2, messages.length - 1); i >= 0; i--) {
    if (messageFingerprint(messages[i]) === state.coveredFingerprint && followed(i)) return state.coveredCount - 1 - i;
  }
  // Dropped exactly up to the covered range's end: the list opens with the message after it.
  return opensAfterCoverage(state, messages) ? state.coveredCount : 0;
}

/**
 * True when `messages` opens with the message that followed the record's covered range: the host dropped
 * the transcript's front exactly where the record ends.
 */
export function opensAfterCoverage(
  state: Pick<SummaryState, "nextFingerprint">,
  messages: readonly unknown[],
): boolean {
  return (
    Boolean(state.nextFingerprint) && messages.length > 0 && messageFingerprint(messages[0]) === state.nextFingerprint
  );
}

/**
 * The record with every index moved down by `shift` (points before the transcript's start clamp to 0 and can no longer
 * be rolled back to).
 */
function shiftSummary(state: SummaryState, shift: number): SummaryState {
  const down = (n: number): number => Math.max(0, n - shift);
  return {
    ...state,
    coveredCount: state.coveredCount - shift,
    digest: { ...state.digest, to: down(state.digest.to) },
    entries: state.entries.map((e) => ({ ...e, from: down(e.from), to: down(e.to) })),
    checkpoints: state.checkpoints.map((cp) => ({ ...cp, coveredCount: down(cp.coveredCount) })),
  };
}

function rollTo(state: SummaryState, count: number, fingerprint: string | null, keepEntries: number): SummaryState {
  return {
    ...state,
    coveredCount: count,
    coveredFingerprint: count === 0 ? null : fingerprint,
    nextFingerprint: null,
    entries: state.entries.slice(0, keepEntries),
    checkpoints: state.checkpoints.filter((cp) => cp.coveredCount <= count),
  };
}

function emptyLike(state: SummaryState): SummaryState {
  return createSummaryState(state.epoch);
}
