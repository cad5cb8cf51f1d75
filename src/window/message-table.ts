/**
 * The history of one assembly as every step after the budget reads it, one row per message:
 * where its turn starts (counted back from the newest), whether it is pinned, its size in the
 * host's transcript, its fingerprint and, per form (as shaped, or with old tool results
 * cleared), the message the prompt carries, its exact tokens and what the planner charges
 * for it. Built once per shaping; each cell is filled when first read and kept, because the
 * planner walks newest-first and stops when the budget is full: a long history costs what the
 * window visits, and no step counts, sizes or fingerprints a message a second time.
 */
import { fingerprintMessage, isGenuineUserMessage, roleOf } from "../host/messages.js";

/** How the table's owner shapes, counts and charges one message (the table decides nothing itself). */
export interface MessageForms {
  /** Message `i` as the prompt carries it, in its cleared form (an old tool result cleared) or not. */
  carried(index: number, cleared: boolean): unknown;
  /** Exact tokens of one carried message (framing included). */
  tokens(message: unknown): number;
  /** Weighted chars of a message as the host stores and sizes it (the owner keeps them per message object). */
  hostChars(message: unknown): number;
  /** What the planner is charged for a carried message of `exactTokens`: the larger of the budget's two units. */
  charge(exactTokens: number, message: unknown): number;
}

/** The per-message table of one assembly (see the module comment). */
export interface MessageTable {
  readonly messages: readonly unknown[];
  /** Index of the newest genuine user message, or -1. */
  readonly newestUser: number;
  /**
   * Kept by every plan: the newest genuine user message, and the host's own compaction
   * summary at the head of the list (2026.4.x), the only telling of the turns before it.
   */
  readonly pinned: (index: number) => boolean;
  /** Chars of message `i` as the host stores and sizes it (weighted, as its estimators count). */
  readonly hostChars: (index: number) => number;
  /** Fingerprint of message `i` (window anchors, the frontier). */
  readonly fingerprint: (index: number) => string;
  /** Message `i` as the prompt carries it with results before `clearBefore` cleared. */
  readonly carried: (index: number, clearBefore: number) => unknown;
  /** Exact tokens of that form. */
  readonly tokens: (index: number, clearBefore: number) => number;
  /** What the planner charges for that form. */
  readonly cost: (index: number, clearBefore: number) => number;
  /** Index of the genuine user message that opens the `turns`-th newest turn (0 when there are fewer). */
  readonly turnStart: (turns: number) => number;
}

/** Builds the table over `messages` (see {@link MessageTable}). */
export function createMessageTable(messages: readonly unknown[], forms: MessageForms): MessageTable {
  // Genuine user messages found so far, newest first, by a backward scan that goes only as far as a read needs.
  const users: number[] = [];
  let scannedFrom = messages.length;
  const scanUntilUsers = (count: number): void => {
    while (scannedFrom > 0 && users.length < count)
      if (isGenuineUserMessage(messages[--scannedFrom])) users.push(scannedFrom);
  };
  scanUntilUsers(1);
  const newestUser = users[0] ?? -1;

  const fingerprints = new Map<number, string>();
  // One cell per message and form: as shaped, and cleared (only a message before a clearing boundary has that form).
  type Cell = { message: unknown; tokens: number; cost?: number };
  const cells = [new Map<number, Cell>(), new Map<number, Cell>()] as const;
  const cell = (index: number, clearBefore: number): Cell => {
    const cleared = index < clearBefore;
    const byIndex = cells[cleared ? 1 : 0];
    let c = byIndex.get(index);
    if (!c) {
      const message = forms.carried(index, cleared);
      byIndex.set(index, (c = { message, tokens: forms.tokens(message) }));
    }
    return c;
  };

  return {
    messages,
    newestUser,
    pinned: (index) => index === newestUser || (index === 0 && roleOf(messages[0]) === "compactionSummary"),
    hostChars: (index) => forms.hostChars(messages[index]),
    fingerprint(index) {
      let f = fingerprints.get(index);
      if (f === undefined) fingerprints.set(index, (f = fingerprintMessage(messages[index])));
      return f;
    },
    carried: (index, clearBefore) => cell(index, clearBefore).message,
    tokens: (index, clearBefore) => cell(index, clearBefore).tokens,
    cost(index, clearBefore) {
      const c = cell(index, clearBefore);
      return (c.cost ??= forms.charge(c.tokens, c.message));
    },
    turnStart(turns) {
      scanUntilUsers(turns);
      return turns >= 1 && users.length >= turns ? (users[turns - 1] as number) : 0;
    },
  };
}
