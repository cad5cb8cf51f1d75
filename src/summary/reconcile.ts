import { createSummaryState, messageFingerprint, type CheckpointRef, type SummaryState } from "./summary-state.js";

/** Why {@link reconcileSummary} answered as it did. */
export type ReconcileReason =
  "consistent" | "front_dropped" | "front_restored" | "transcript_shorter" | "transcript_diverged";

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
  const consistent: ReconcileResult = { state, rolledBack: false, reason: "consistent" };
  const matches = (count: number, fingerprint: string | null): boolean =>
    count === 0 || (count <= n && fingerprint !== null && messageFingerprint(messages[count - 1]) === fingerprint);
  if (state.coveredCount > 0 && matches(state.coveredCount, state.coveredFingerprint)) return consistent;
  const shift = state.coveredCount > 0 ? frontDropped(state, messages) : 0;
  if (shift > 0) return { state: shiftSummary(state, shift), rolledBack: false, reason: "front_dropped" };
  const restored = opensAfterCoverage(state, messages) ? 0 : frontRestored(state, messages);
  if (restored > 0) return { state: shiftSummary(state, -restored), rolledBack: false, reason: "front_restored" };
  // Nothing covered yet, or a covered range that lies wholly before the list (its front dropped where it ends).
  if (state.coveredCount === 0) return consistent;
  const reason: ReconcileReason = n < state.coveredCount ? "transcript_shorter" : "transcript_diverged";

  for (let k = state.entries.length - 1; k >= 0; k--) {
    const e = state.entries[k]!;
    // An entry whose end a front drop clamped to 0 is no point to roll back to: kept with nothing covered, its turns
    // would be told again.
    if (e.to > 0 && e.to <= n && matches(e.to, e.endFingerprint)) {
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
  for (let i = Math.min(state.coveredCount - 2, messages.length - 1); i >= 0; i--) {
    if (isCoveredEnd(state, messages, i)) return state.coveredCount - 1 - i;
  }
  // Dropped exactly up to the covered range's end: the list opens with the message after it.
  return opensAfterCoverage(state, messages) ? state.coveredCount : 0;
}

/**
 * How many messages the list shows again in front of what the record counted (a list whose front was dropped, then
 * the whole transcript again): the covered frontier message now lies further down. 0 when it is not found there.
 */
function frontRestored(state: SummaryState, messages: readonly unknown[]): number {
  if (!state.coveredFingerprint) return 0;
  for (let i = state.coveredCount; i < messages.length; i++) {
    if (isCoveredEnd(state, messages, i)) return i + 1 - state.coveredCount;
  }
  return 0;
}

/**
 * Whether `messages[i]` is the last message the record covers. Messages of equal content fingerprint alike: where the
 * record knows what followed its end, that must follow too.
 */
function isCoveredEnd(state: SummaryState, messages: readonly unknown[], i: number): boolean {
  if (messageFingerprint(messages[i]) !== state.coveredFingerprint) return false;
  return (
    !state.nextFingerprint || i + 1 >= messages.length || messageFingerprint(messages[i + 1]) === state.nextFingerprint
  );
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
 * The record with every index moved down by `shift` (up for a negative one). Points before the transcript's start
 * clamp to 0 and can no longer be rolled back to; moved up, they stay 0 (where they lie is no longer known).
 */
function shiftSummary(state: SummaryState, shift: number): SummaryState {
  const move = (n: number): number => (shift < 0 && n === 0 ? 0 : Math.max(0, n - shift));
  return {
    ...state,
    coveredCount: state.coveredCount - shift,
    digest: { ...state.digest, to: move(state.digest.to) },
    entries: state.entries.map((e) => ({ ...e, from: e.to === 0 ? 0 : move(e.from), to: move(e.to) })),
    checkpoints: state.checkpoints.map((cp) => ({ ...cp, coveredCount: move(cp.coveredCount) })),
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
