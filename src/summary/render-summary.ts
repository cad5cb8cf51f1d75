import { redactSecrets } from "../results/redact.js";
import { mergeIntoDigest } from "./fold-summary.js";
import { renderDigestBlock, renderEntryLine, type RedactFn } from "./render-parts.js";
import { createEmptyDigest, type SummaryState } from "./summary-state.js";
import { renderUserTurns } from "./user-turns.js";
import type { NumberedUserTurn } from "./user-turns.js";

import { SUMMARY_OPEN } from "../host/messages.js";

export { SUMMARY_OPEN };
/** Last line of every rendered summary. */
export const SUMMARY_CLOSE = "[/context-ledger summary]";
/** Smallest bound honoured; smaller `maxChars` are raised to it. */
export const MIN_SUMMARY_CHARS = 200;

/** Options for {@link renderSummary}. */
export interface RenderSummaryOptions {
  /**
   * Upper bound of the rendered text, markers included, but for the quoted user messages ({@link userTurns}), which
   * come on top of it.
   * @default 4000
   */
  maxChars?: number;
  /**
   * Handle of the sealed checkpoint pack holding the full record.
   * @default the newest of `state.checkpoints`
   */
  checkpointHandle?: string;
  /**
   * Share of the room reserved first for the newest turns in detail; the rest
   * goes to the condensed older turns, and whatever one part leaves unused the other gets.
   * The newest turns are also the ones nearest the kept window, so the older record gets more.
   * @default 0.35
   */
  detailShare?: number;
  /**
   * Rewrites every piece of recorded text before it is clipped, and the whole body (secret redaction). @default the
   * built-in rules
   */
  redact?: RedactFn;
  /**
   * The user's messages the block tells (those the window does not show), numbered as the conversation counts them:
   * quoted whole after the intro ({@link renderUserTurns}), and left out of the turn lines and the condensed block.
   * @default none (the turn lines carry each message's first sentences)
   */
  userTurns?: readonly NumberedUserTurn[];
  /**
   * Bound of the quoted user messages, on top of `maxChars`; past it they are condensed ({@link renderUserTurns}).
   * @default no bound
   */
  userChars?: number;
}

/** What {@link renderSummaryReport} rendered. */
export interface SummaryRender {
  /** The summary block. */
  text: string;
  /** Turns shown one line each (the newest). */
  detailedTurns: number;
  /** Turns shown only in the condensed block (folded ones included). */
  condensedTurns: number;
  /** Condensed-block items left out for lack of room. */
  omittedItems: number;
  /** The handle named as the full record, if any. */
  recordHandle: string | undefined;
  /**
   * True when the render condenses turns that no sealed checkpoint holds (none sealed yet, or the newest holds fewer
   * turns than are condensed now): seal one and render again.
   */
  needsCheckpoint: boolean;
}

/**
 * Condensed turns past the newest pack that may wait for the next one (a seal changes the block: a prompt-cache miss).
 * Their text stays in the record and in the host's transcript meanwhile.
 */
export const SEAL_LAG_TURNS = 8;

/** Whether `condensed` turns (the oldest of the record) reach past what the newest pack holds, by more than the lag. */
function unsealed(state: SummaryState, condensed: number): boolean {
  const latest = state.checkpoints.at(-1);
  return latest === undefined || condensed > latest.turns + SEAL_LAG_TURNS;
}

/**
 * Renders the summary as deterministic text between {@link SUMMARY_OPEN} and
 * {@link SUMMARY_CLOSE}, never longer than `maxChars`: the newest turns one
 * line each, older ones condensed into one block of decisions, errors,
 * handles, notes with numbers, files and requests. When anything is condensed
 * it names the checkpoint pack holding the full record and how to fetch it.
 */
export function renderSummary(state: SummaryState, options: RenderSummaryOptions = {}): string {
  return renderSummaryReport(state, options).text;
}

/** {@link renderSummary} with an account of what was kept and condensed. */
export function renderSummaryReport(state: SummaryState, options: RenderSummaryOptions = {}): SummaryRender {
  const maxChars = Math.max(
    MIN_SUMMARY_CHARS,
    Math.floor(Number.isFinite(options.maxChars) ? options.maxChars! : 4000),
  );
  const share = Math.min(1, Math.max(0, options.detailShare ?? 0.35));
  const redact = options.redact ?? redactSecrets;
  const handle = options.checkpointHandle ?? state.checkpoints.at(-1)?.handle;
  const entries = state.entries;
  const users = options.userTurns ?? [];
  const quoted = users.length > 0;
  const totalTurns = quoted ? users.at(-1)!.turn : state.digest.turns + entries.length;
  // No message indices: a host that passes a tail of the transcript moves them every turn, and the
  // block would change (a prompt-cache miss) while saying the same.
  const intro =
    totalTurns === 0
      ? "No earlier turns recorded."
      : `Earlier conversation: turns 1-${totalTurns}, no longer shown in full. Oldest first.`;
  // The quoted user messages come on top of the rest's bound (the plan reserves room for both).
  const userSection = renderUserTurns(users, options.userChars).text;
  const maxRest = maxChars;
  const recordLine = handle
    ? `Full record of condensed turns: checkpoint ${handle}. Read it with ledger_fetch (that handle; e.g. a grep for a file or error, or json path $.summary.entries).`
    : "Full record of condensed turns: the session summary record (no checkpoint sealed yet).";
  const fixed = SUMMARY_OPEN.length + SUMMARY_CLOSE.length + intro.length + 3;
  // Aligned with `entries`; an entry with nothing to tell renders "" and is left out of the body.
  const lines = entries.map((e, i) => renderEntryLine(e, e.turn ?? state.digest.turns + i + 1, redact, !quoted));

  const allLen = lines.reduce((sum, l) => sum + l.length + 1, 0);
  if (state.digest.turns === 0 && fixed + allLen <= maxRest) {
    return finish([intro, ...lines.filter((l) => l !== "")], {
      detailedTurns: entries.length,
      condensedTurns: 0,
      omittedItems: 0,
      recordHandle: undefined,
      needsCheckpoint: false,
    });
  }

  const avail = Math.max(0, maxRest - fixed - recordLine.length - 1);
  // Newest first: take detailed lines while they fit the detail share ...
  let k = 0;
  let detailLen = 0;
  while (k < lines.length) {
    const len = lines[lines.length - 1 - k]!.length + 1;
    if (detailLen + len > avail * share) break;
    detailLen += len;
    k++;
  }
  // ... then more while the condensed rest still fits whole in what remains.
  // Digests are built from a base folded once, so this stays linear in the entries.
  let kMax = k;
  for (let len = detailLen; kMax < lines.length; kMax++) {
    len += lines[lines.length - 1 - kMax]!.length + 1;
    if (len > avail) break;
  }
  const baseCount = entries.length - kMax;
  const base = digestFor(state, baseCount);
  while (k < lines.length && k < kMax) {
    const len = lines[lines.length - 1 - k]!.length + 1;
    const rest = renderDigestBlock(
      mergeIntoDigest(base, entries.slice(baseCount, entries.length - k - 1)),
      1,
      Number.MAX_SAFE_INTEGER,
      { redact, withRequests: !quoted },
    );
    if (detailLen + len + rest.text.length + 1 > avail) break;
    detailLen += len;
    k++;
  }
  const older = entries.length - k;
  const digest = older >= baseCount ? mergeIntoDigest(base, entries.slice(baseCount, older)) : digestFor(state, older);
  const block =
    digest.turns > 0
      ? renderDigestBlock(digest, 1, avail - detailLen - 1, { redact, withRequests: !quoted })
      : { text: "", omitted: 0 };
  const body = [intro, recordLine, ...(block.text ? [block.text] : []), ...lines.slice(older).filter((l) => l !== "")];
  return finish(body, {
    detailedTurns: k,
    condensedTurns: digest.turns,
    omittedItems: block.omitted,
    recordHandle: handle,
    // The newest pack holds the record's first `turns` turns; condensed turns past them are in no pack yet. A long
    // session on 2026.9.6 kept condensing after its first pack (sealed at turn 12): 480 turns reachable by no handle,
    // and a record that grew to 493 entries, re-read on every assemble.
    needsCheckpoint:
      digest.turns > 0 && (options.checkpointHandle === undefined ? unsealed(state, digest.turns) : false),
  });

  function finish(bodyLines: string[], report: Omit<SummaryRender, "text">): SummaryRender {
    // Each piece was redacted before it was clipped; a last pass catches a secret spread over pieces. Cut only after
    // it.
    const [head = "", ...rest] = bodyLines;
    const withUsers = userSection ? [head, userSection, ...rest] : bodyLines;
    const body = redact(withUsers.join("\n"));
    let text = [SUMMARY_OPEN, body, SUMMARY_CLOSE].join("\n");
    const bound = maxRest + (userSection ? userSection.length + 1 : 0);
    if (text.length > bound) {
      // Safety net; the budgeting above keeps this from happening in practice.
      const room = bound - SUMMARY_OPEN.length - SUMMARY_CLOSE.length - 3;
      text = `${SUMMARY_OPEN}\n${body.slice(0, Math.max(0, room))}…\n${SUMMARY_CLOSE}`;
    }
    return { text, ...report };
  }
}

/** The digest of everything before entry `olderCount` (folded turns plus the first `olderCount` entries). */
function digestFor(state: SummaryState, olderCount: number): ReturnType<typeof createEmptyDigest> {
  if (olderCount <= 0) return state.digest;
  return mergeIntoDigest(state.digest, state.entries.slice(0, olderCount));
}
