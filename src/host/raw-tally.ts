/**
 * Raw-history pressure, sized the way the hosts' overflow precheck sizes it:
 * characters / 4 per message (images as 4,800 chars), not exact BPE. Exact
 * counting of a 20-million-token transcript would take minutes; the host's
 * own rule is linear in the number of blocks and predicts what the precheck
 * will see, which is what maintenance debt is about. The debt reading itself
 * (raw tokens over the budget) and its short history live here too.
 */
import { blocksOf, fingerprintMessage, roleOf, safeJson } from "./messages.js";

/** How many debt readings a session keeps for the trend. */
export const MAX_DEBT_HISTORY = 32;

/** One maintenance-debt reading. */
export interface DebtReading {
  /** ISO time of the reading. */
  at: string;
  /** Tokens of the raw transcript, what a raw-history precheck sizes. */
  rawHistoryTokens: number;
  /** Tokens of the last assembled prompt (messages + injected blocks). */
  assembledTokens: number;
  /** The host's prompt budget for that assembly. */
  promptBudget: number;
  /** `max(0, raw - budget)`. */
  debtTokens: number;
  /** Tool-result chars in the raw transcript that offload could remove. */
  reducibleChars: number;
}

/** Incremental raw-history tally: what has been counted so far. */
export interface RawTally {
  /** Messages counted from the start of the transcript. */
  count: number;
  /** Fingerprint of message `count - 1`, to detect rewinds and rewrites. */
  lastFingerprint: string | null;
  /** Sum of their tokens. */
  tokens: number;
  /** Sum of reducible tool-result chars among them. */
  reducibleChars: number;
}

/** Chars the host charges for one image block. */
export const IMAGE_CHARS = 4_800;

/** Host-style token estimate of one message (ceil(chars / 4)). */
export function estimateRawTokens(message: unknown): number {
  return Math.ceil(rawChars(message) / 4);
}

/** Chars of a message as the host's estimator counts them. */
export function rawChars(message: unknown): number {
  let chars = 0;
  for (const block of blocksOf(message)) {
    if (typeof block.text === "string") chars += block.text.length;
    else if (typeof block.thinking === "string") chars += block.thinking.length;
    else if (block.type === "image") chars += IMAGE_CHARS;
    // safeJson, not String(): a name like `{"toString": 1}` from parsed JSON makes String() throw.
    else if (block.type === "toolCall")
      chars +=
        (typeof block.name === "string" ? block.name.length : safeJson(block.name ?? "").length) +
        safeJson(block.arguments).length;
    else chars += safeJson(block).length;
  }
  return chars;
}

/** Tool-result chars above `minChars` that offload could remove (the stub stays). */
export function reducibleChars(message: unknown, minChars: number, stubChars = 1_200): number {
  if (roleOf(message) !== "toolResult") return 0;
  let chars = 0;
  for (const block of blocksOf(message)) {
    if (typeof block.text === "string" && block.text.length > minChars && !block.text.startsWith("[context-ledger")) {
      chars += block.text.length - stubChars;
    }
  }
  return Math.max(0, chars);
}

/**
 * Brings a tally up to date with `messages`: only messages after the counted
 * prefix are visited, unless the prefix no longer matches (rewind, rewrite,
 * reset), in which case it recounts from the start.
 */
function advanceTally(tally: RawTally, messages: readonly unknown[], minReducibleChars: number): RawTally {
  let from = tally.count;
  let next: RawTally = { ...tally };
  const prefixHolds =
    tally.count <= messages.length &&
    (tally.count === 0 || fingerprintMessage(messages[tally.count - 1]) === tally.lastFingerprint);
  if (!prefixHolds) {
    next = { count: 0, lastFingerprint: null, tokens: 0, reducibleChars: 0 };
    from = 0;
  }
  for (let i = from; i < messages.length; i++) {
    next.tokens += estimateRawTokens(messages[i]);
    next.reducibleChars += reducibleChars(messages[i], minReducibleChars);
  }
  if (messages.length > from) {
    next.count = messages.length;
    next.lastFingerprint = fingerprintMessage(messages[messages.length - 1]);
  }
  return next;
}

/** Appends a debt reading to the bounded history. */
export function recordDebt(
  state: { lastDebt: DebtReading | null; debtHistory: DebtReading[] },
  reading: DebtReading,
): void {
  state.lastDebt = reading;
  state.debtHistory.push(reading);
  if (state.debtHistory.length > MAX_DEBT_HISTORY)
    state.debtHistory.splice(0, state.debtHistory.length - MAX_DEBT_HISTORY);
}

/** What a debt reading is taken against: the history as stored, the tally so far and the assembly's figures. */
export interface DebtInput {
  /** The history assemble received, operator exchanges included. */
  history: readonly unknown[];
  /** The session's tally before this reading. */
  raw: RawTally;
  /** Tool-result chars above which an output counts as reducible. */
  minEntryChars: number;
  /** Exact tokens of the assembled prompt. */
  assembledTokens: number;
  /** The host's prompt budget of that assembly. */
  promptBudget: number;
}

/** Brings the tally up to date and reads the maintenance debt from it. */
export function readDebt(input: DebtInput): { tally: RawTally; debt: DebtReading } {
  const tally = advanceTally(input.raw, input.history, input.minEntryChars);
  return {
    tally,
    debt: {
      at: new Date().toISOString(),
      rawHistoryTokens: tally.tokens,
      assembledTokens: input.assembledTokens,
      promptBudget: input.promptBudget,
      debtTokens: Math.max(0, tally.tokens - input.promptBudget),
      reducibleChars: tally.reducibleChars,
    },
  };
}
