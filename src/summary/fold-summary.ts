import { clip, pushBounded } from "./extract-facts.js";
import { DIGEST_LIMITS as D, type SummaryDigest, type SummaryEntry, type SummaryState } from "./summary-state.js";

/** Chars of a user request kept in a digest. */
export const DIGEST_REQUEST_CHARS = 120;

/** Returns a copy of `digest` with `entries` (the turns right after it, oldest first) folded in. */
export function mergeIntoDigest(digest: SummaryDigest, entries: readonly SummaryEntry[]): SummaryDigest {
  const out: SummaryDigest = {
    ...digest,
    toolNames: { ...digest.toolNames },
    requests: [...digest.requests],
    decisions: [...digest.decisions],
    facts: [...digest.facts],
    files: [...digest.files],
    errors: [...digest.errors],
    handles: [...digest.handles],
  };
  for (const e of entries) {
    out.turns++;
    out.to = e.to;
    out.endFingerprint = e.endFingerprint;
    out.toolCalls += e.tools.length + e.toolsOmitted;
    for (const t of e.tools) {
      out.toolNames[t.name] = (out.toolNames[t.name] ?? 0) + 1;
      if (t.outcome === "error") out.failedCalls++;
    }
    let dropped = 0;
    if (e.user) dropped += pushBounded(out.requests, [clip(e.user, DIGEST_REQUEST_CHARS)], D.requests);
    dropped += pushBounded(out.decisions, e.decisions, D.decisions);
    dropped += pushBounded(out.facts, e.facts, D.facts);
    dropped += pushBounded(out.files, e.files, D.files);
    dropped += pushBounded(out.errors, e.errors, D.errors);
    dropped += pushBounded(
      out.handles,
      [...e.tools.flatMap((t) => (t.handle ? [t.handle] : [])), ...e.handles],
      D.handles,
    );
    out.omitted += dropped;
  }
  return out;
}

/**
 * Folds all but the newest `keepEntries` entries into the digest. Call it only
 * after sealing a checkpoint pack that holds those entries in full (see
 * `sealCheckpoint`), so condensing never loses the full record.
 */
export function foldSummary(state: SummaryState, keepEntries: number): SummaryState {
  const keep = Math.max(0, Math.floor(keepEntries));
  if (state.entries.length <= keep) return state;
  const cut = state.entries.length - keep;
  return {
    ...state,
    digest: mergeIntoDigest(state.digest, state.entries.slice(0, cut)),
    entries: state.entries.slice(cut),
  };
}
