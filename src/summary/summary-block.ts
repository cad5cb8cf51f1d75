/**
 * What the session summary's block shows a view, and at what size: the rule that decides whether a window is told
 * anything (history trimmed, the window under pressure, a dropped front, a user message the window does not show), the
 * part of the record a window that starts before its end is shown, and the largest rendering that fits the room.
 * Pure: the caller opens, advances and saves the record and keeps the caches.
 */
import type { AgentSettings } from "../config/schema.js";
import { renderSummaryReport } from "./render-summary.js";
import { createEmptyDigest, type SummaryState } from "./summary-state.js";
import type { NumberedUserTurn } from "./user-turns.js";

/** A rendered block and its exact tokens. */
export interface CountedBlock {
  text: string;
  tokens: number;
}

/** The block of one view (no text: nothing injected). */
export interface SummaryBlock {
  text?: string;
  tokens: number;
  /** The time of the newest message the block quotes, when it quotes one. */
  timestamp?: number;
  /** Chars the block wanted at full size (it may have been rendered smaller to fit the room). */
  wantedChars?: number;
}

/** Renders of one state by max chars. */
export type SummaryRender = (maxChars: number) => ReturnType<typeof renderSummaryReport>;

/** Renders of one state, each size once, quoting `userTurns` whole. */
export function summaryRenderer(
  state: SummaryState,
  redact: (text: string) => string,
  userTurns: readonly NumberedUserTurn[],
  userChars: number,
): SummaryRender {
  const renders = new Map<number, ReturnType<typeof renderSummaryReport>>();
  return (maxChars) => {
    let report = renders.get(maxChars);
    if (!report)
      renders.set(maxChars, (report = renderSummaryReport(state, { maxChars, redact, userTurns, userChars })));
    return report;
  };
}

/** The room a block is rendered into. */
export interface SummaryRoom {
  /** First index the window keeps. */
  windowStart: number;
  /** Exact tokens of the window as planned. */
  windowTokens: number;
  /** Exact tokens still free inside the budget after the kept messages. */
  budgetLeft: number;
  /** The host passed no usable budget and the engine raised it: the room is no measure of the host's window. */
  budgetRaised?: boolean;
  /** Exact tokens of a text. */
  countText(text: string): number;
  /** Chars the quoted user messages may take under a raised budget (their share of the fallback budget). */
  raisedUserChars: number;
}

/** Blocks kept by key (a window's standing blocks, a state's renders). */
export interface BlockCache {
  get(key: string): CountedBlock | undefined;
  set(key: string, block: CountedBlock): unknown;
  has(key: string): boolean;
}

/** The record as told up to the window, and the caches its renderings go to. */
export interface ToldRecord {
  state: SummaryState;
  render: SummaryRender;
  users: readonly NumberedUserTurn[];
  userChars: number;
  /** Renders of this state, by size and what was shown. */
  renders: BlockCache;
  target: number;
  redact: (t: string) => string;
  /** The block each standing window was first shown, by {@link windowKey} and size. */
  standing: BlockCache;
  windowKey: string;
}

/** The block when the summary tells something the window does not hold, at the largest size that fits the room. */
export function renderWithinRoom(settings: AgentSettings, input: SummaryRoom, told: ToldRecord): SummaryBlock {
  const { state, render, users, renders, target, redact, standing, windowKey } = told;
  const { windowStart, windowTokens } = input;
  const pressured = windowTokens > settings.summary.injectAtShare * (windowTokens + Math.max(0, input.budgetLeft));
  // A record whose turns lie wholly before the list (the host dropped the front) tells what the list no longer holds.
  const tellsDroppedFront = state.entries.some((e) => e.to === 0) || (state.digest.turns > 0 && state.digest.to === 0);
  // The prompt contract: a user message the window does not show is quoted in the block.
  const untold = users.length > 0;
  const tellsSomething = state.coveredCount > 0 || tellsDroppedFront || untold;
  if (!tellsSomething || !(windowStart > 0 || pressured || tellsDroppedFront || untold)) return { tokens: 0 };
  const shown = recordBefore(state, target, tellsDroppedFront || untold);
  if (!shown) return { tokens: 0 };
  // Stamped with the newest quoted message's time: the same while the block is (a prompt-cache hit).
  const newestAt = users.at(-1)?.at;
  const newestTime = newestAt !== undefined ? { timestamp: newestAt } : {};
  const shownKey =
    (shown === state ? "" : `@${shown.entries.length}:${shown.checkpoints.length}:${shown.digest.turns}`) +
    `|u${users.length}`;
  // The chars the block wants at full size: what the next plan of this budget class reserves.
  let wantedChars = 0;
  for (let maxChars = settings.summary.maxInjectedChars; maxChars >= 200; maxChars = Math.floor(maxChars / 2)) {
    const standingKey = `${windowKey}|${maxChars}`;
    let counted = (shown === state ? undefined : standing.get(standingKey)) ?? renders.get(`${maxChars}${shownKey}`);
    if (!counted) {
      const text =
        shown === state
          ? render(maxChars).text
          : renderSummaryReport(shown, { maxChars, redact, userTurns: users, userChars: told.userChars }).text;
      counted = { text, tokens: input.countText(text) };
      renders.set(`${maxChars}${shownKey}`, counted);
    }
    if (!standing.has(standingKey) || shown === state) standing.set(standingKey, counted);
    wantedChars = Math.max(wantedChars, counted.text.length);
    if (counted.tokens <= input.budgetLeft)
      return { text: counted.text, tokens: counted.tokens, wantedChars, ...newestTime };
  }
  if (!untold) return { tokens: 0 };
  // The user's messages alone do not fit whole: the longest are condensed (each says so) to what the room holds, unless
  // the room is no measure of the host's window (a degenerate budget the engine raised: the plan is over it anyway).
  const text = renderSummaryReport(shown, {
    maxChars: 200,
    redact,
    userTurns: users,
    userChars: input.budgetRaised ? input.raisedUserChars : Math.max(0, input.budgetLeft * 3 - 400),
  }).text;
  const tokens = input.countText(text);
  return tokens <= input.budgetLeft || input.budgetRaised
    ? { text, tokens, wantedChars, ...newestTime }
    : { tokens: 0, wantedChars };
}

/**
 * What a window starting at `target` is told. A window that starts before the record's end (another budget class
 * advanced it) is shown only the turns it dropped itself, so no turn is told twice: the entries and packs up to its
 * start, and the folded digest only if it ends there too. Undefined when that leaves nothing and nothing lies before
 * the window; when the turns before it were folded past its start, the whole record (nothing is left untold).
 */
function recordBefore(state: SummaryState, target: number, tellsDroppedFront: boolean): SummaryState | undefined {
  if (state.coveredCount <= target) return state;
  const shown = {
    ...state,
    entries: state.entries.filter((e) => e.to <= target),
    checkpoints: state.checkpoints.filter((c) => c.coveredCount <= target),
    digest: state.digest.to <= target ? state.digest : createEmptyDigest(),
  };
  if (shown.entries.length > 0 || shown.digest.turns > 0 || tellsDroppedFront) return shown;
  return target === 0 ? undefined : { ...state };
}
