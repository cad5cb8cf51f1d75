/**
 * The figures every operator surface shows (`status`, `/ledger status`, `view`, the Ledger page), each computed
 * once, here, from the session state and the store, with the meaning `docs/glossary.md` gives it. The store holds
 * more than tool outputs (checkpoints, transcript parts, packed branches, schema parts); a host line may commit a turn
 * in several steps (2026.4-2026.7 call afterTurn per tool-loop step); the engine may seal a checkpoint the host's
 * transcript never records; an assembly reads the debt before maintain() pays it down. None of those is what the
 * words "outputs offloaded", "turns", "compactions" and "debt" say.
 */
import type { ArtifactMeta, ArtifactStore, StoreStats } from "../../artifacts/index.js";
import type { DebtReading } from "../../host/raw-tally.js";
import { PACKED_BRANCHES_KIND, PLAIN_BRANCHES_KIND, TRANSCRIPT_PART_KIND } from "../../maintenance/reclaimed-lines.js";
import type { SessionState } from "../../state/session-state.js";
import { formatCount, plural } from "../core/format.js";

/** What the store holds, by what it is. */
export interface StoredTally {
  /** Distinct tool outputs (an output repeated byte for byte is stored, and counted, once). */
  toolOutputs: number;
  /** Sealed summaries (one per compaction the engine made). */
  checkpoints: number;
  /** Parts of host transcripts: reclaimed lines, plain and packed branches. */
  transcriptParts: number;
  /** The rest: stripped schemas and fields, large user input, operator stashes. */
  other: number;
}

const TRANSCRIPT_KINDS: ReadonlySet<string> = new Set([
  TRANSCRIPT_PART_KIND,
  PLAIN_BRANCHES_KIND,
  PACKED_BRANCHES_KIND,
]);

/** Counts one artifact's meta into a tally. */
export function tallyMeta(tally: StoredTally, meta: Pick<ArtifactMeta, "kind">): void {
  if (meta.kind === "tool-output") tally.toolOutputs++;
  else if (meta.kind === "checkpoint") tally.checkpoints++;
  else if (TRANSCRIPT_KINDS.has(meta.kind)) tally.transcriptParts++;
  else tally.other++;
}

/** An empty tally. */
export function emptyTally(): StoredTally {
  return { toolOutputs: 0, checkpoints: 0, transcriptParts: 0, other: 0 };
}

/** The store's artifacts by kind, in one pass: all of them, per session they were stored from, and their sizes. */
export async function tallyStore(
  store: Pick<ArtifactStore, "list">,
): Promise<{ all: StoredTally; bySession: Map<string, StoredTally>; stats: StoreStats }> {
  const all = emptyTally();
  const bySession = new Map<string, StoredTally>();
  const stats: StoreStats = { count: 0, bytes: 0, storedBytes: 0 };
  for await (const meta of store.list()) {
    stats.count++;
    stats.bytes += meta.bytes;
    stats.storedBytes += meta.storedBytes;
    tallyMeta(all, meta);
    const key = meta.origin.sessionKey;
    if (key === undefined) continue;
    let tally = bySession.get(key);
    if (!tally) bySession.set(key, (tally = emptyTally()));
    tallyMeta(tally, meta);
  }
  return { all, bySession, stats };
}

/** The tally of one session, or of the whole store. */
export async function tallyStored(store: Pick<ArtifactStore, "list">, sessionKey?: string): Promise<StoredTally> {
  const { all, bySession } = await tallyStore(store);
  return sessionKey === undefined ? all : (bySession.get(sessionKey) ?? emptyTally());
}

/** "N tool outputs offloaded (and M checkpoints, K transcript parts, J other parts)": the store's words, once. */
export function describeTally(t: StoredTally): string {
  const apart = [
    t.checkpoints ? plural(t.checkpoints, "checkpoint") : "",
    t.transcriptParts ? plural(t.transcriptParts, "transcript part") : "",
    t.other ? plural(t.other, "other part") : "",
  ].filter(Boolean);
  return `${plural(t.toolOutputs, "tool output")} offloaded${apart.length ? ` (stored apart: ${apart.join(", ")})` : ""}`;
}

/** The debt of a reading: after the turn's paydown when maintain() has read it, else as assembled. */
export function debtAfter(reading: DebtReading): number {
  return reading.afterPaydown?.debtTokens ?? reading.debtTokens;
}

/** One session's figures, as every surface words them. */
export interface SessionFigures {
  /** The user's turns: genuine user messages committed (operator commands and host-internal messages apart). */
  userTurns: number;
  /** Compaction entries the host's transcript got. */
  compactions: number;
  /** Checkpoints the engine sealed (a compaction the transcript did not record still seals one). */
  checkpoints: number;
  /** The newest debt reading before the turn's paydown (what the assembly read); null before any. */
  debtBeforePaydown: number | null;
  /** The debt the turn's paydown left (the figure reported); null before any reading. */
  debtAfterPaydown: number | null;
}

/** The figures of a session's state (older states: their commits and checkpoints stand in). */
export function sessionFigures(state: SessionState | null | undefined): SessionFigures {
  const last = state?.lastDebt ?? null;
  const turn = userTurnReadings(state?.debtHistory ?? []).at(-1);
  return {
    userTurns: state?.userTurns ?? state?.turns ?? 0,
    compactions: state?.hostCompactions ?? state?.compactions ?? 0,
    checkpoints: state?.compactions ?? 0,
    debtBeforePaydown: turn ? turn.debtBefore : last ? last.debtTokens : null,
    debtAfterPaydown: last ? debtAfter(last) : null,
  };
}

/** One turn of the user's, from the debt readings of its assemblies. */
export interface UserTurnReading {
  userTurn: number;
  /** The largest prompt assembled for the turn, and its budget. */
  assembledTokens: number;
  promptBudget: number;
  /** The most debt read while the turn ran (before its paydown). */
  debtBefore: number;
  /** What the turn's last paydown left (null when maintain() has not read it). */
  debtAfter: number | null;
  at: string;
}

/** The readings grouped by the user's turn, oldest first (readings recorded before user turns were kept: by turn). */
export function userTurnReadings(history: readonly DebtReading[]): UserTurnReading[] {
  const out: UserTurnReading[] = [];
  for (const d of history) {
    const userTurn = d.userTurn ?? d.turn ?? out.length + 1;
    const prev = out.at(-1);
    if (prev && prev.userTurn === userTurn) {
      if (d.assembledTokens >= prev.assembledTokens) {
        prev.assembledTokens = d.assembledTokens;
        prev.promptBudget = d.promptBudget;
      }
      prev.debtBefore = Math.max(prev.debtBefore, d.debtTokens);
      prev.debtAfter = d.afterPaydown?.debtTokens ?? null;
      prev.at = d.at;
      continue;
    }
    out.push({
      userTurn,
      assembledTokens: d.assembledTokens,
      promptBudget: d.promptBudget,
      debtBefore: d.debtTokens,
      debtAfter: d.afterPaydown?.debtTokens ?? null,
      at: d.at,
    });
  }
  return out;
}

/** A session's figures with what the store holds from it: what every surface prints about a session. */
export interface SessionSummaryFigures extends SessionFigures {
  stored: StoredTally;
}

/** The session's figures on one line, worded as the glossary words them. */
export function figuresLine(f: SessionSummaryFigures): string {
  return `${plural(f.userTurns, "turn")} · ${describeTally(f.stored)} · ${plural(f.compactions, "compaction")} in the host's transcript · debt ${formatCount(f.debtAfterPaydown)} tokens after the turn's paydown (${formatCount(f.debtBeforePaydown)} before)`;
}
