/**
 * Raw-history pressure, sized the way the hosts' overflow precheck sizes it:
 * characters / 4 per message (images as 4,800 chars), not exact BPE. Exact
 * counting of a 20-million-token transcript would take minutes; the host's
 * own rule is linear in the number of blocks and predicts what the precheck
 * will see, which is what maintenance debt is about. The debt reading itself
 * (raw tokens over the budget) and its short history live here too.
 */
import { safeJson } from "../json.js";
import { blocksOf, fingerprintMessage, roleOf } from "./messages.js";

/** How many debt readings a session keeps for the trend. */
const MAX_DEBT_HISTORY = 32;

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
  /** The turn the assembly prepared (committed turns + 1); absent in readings recorded before turns were kept. */
  turn?: number;
  /**
   * Assemblies of the turn this reading stands for (absent: 1). 2026.9.x assembles several times within a tool
   * turn; the reading is the turn's main prompt (see {@link turnReading}).
   */
  assembles?: number;
  /** Smallest budget among the turn's assemblies (the host's in-turn calls: down to 1, raised to the floor). */
  minPromptBudget?: number;
  /** The user's turn the assembly served (genuine user messages up to and including the live one). */
  userTurn?: number;
  /**
   * The transcript as the host loads it once maintain() has paid the turn down, over the same budget: set by the
   * maintain() after the reading, dropped when a later assembly of the same turn reads again.
   */
  afterPaydown?: { at: string; rawHistoryTokens: number; debtTokens: number };
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
const IMAGE_CHARS = 4_800;

/** Host-style token estimate of one message (ceil(chars / 4)). */
export function estimateRawTokens(message: unknown): number {
  return Math.ceil(rawChars(message) / 4);
}

/** Chars of a message as the host's estimator counts them. */
function rawChars(message: unknown): number {
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

/**
 * One turn's reading from two assemblies of that turn (`earlier`, then `later`). The prompt figures are the turn's
 * main prompt: the assembly with the largest budget (the later on a tie). 2026.9.6 assembles before the turn (budget
 * after the output reserve and system prompt), then before every model request of the tool loop with the budget
 * less what the turn has appended so far: the first loop call, which shapes the turn's first request, has the
 * largest; the last ones fall to 1. The raw history is the fullest one seen (9.x hands its loop calls the
 * assembled view, not the transcript), and the debt is taken between the two.
 */
export function turnReading(earlier: DebtReading, later: DebtReading): DebtReading {
  // An assembly of no history at all (a probe) is never the turn's prompt while another saw some.
  const main =
    later.rawHistoryTokens > 0 !== earlier.rawHistoryTokens > 0
      ? later.rawHistoryTokens > 0
        ? later
        : earlier
      : later.promptBudget >= earlier.promptBudget
        ? later
        : earlier;
  const raw = later.rawHistoryTokens >= earlier.rawHistoryTokens ? later : earlier;
  return {
    ...debtReading(later.at, raw, main, later),
    assembles: (earlier.assembles ?? 1) + (later.assembles ?? 1),
    minPromptBudget: Math.min(
      earlier.minPromptBudget ?? earlier.promptBudget,
      later.minPromptBudget ?? later.promptBudget,
    ),
  };
}

/**
 * Records a debt reading: one per turn in the bounded history, a reading of a turn already read merged into it
 * ({@link turnReading}). Returns the turn's reading, which is also `state.lastDebt`.
 */
export function recordDebt(
  state: { lastDebt: DebtReading | null; debtHistory: DebtReading[] },
  reading: DebtReading,
): DebtReading {
  const last = state.debtHistory.at(-1);
  const sameTurn = last !== undefined && reading.turn !== undefined && last.turn === reading.turn;
  const merged = sameTurn ? turnReading(last, reading) : reading;
  if (sameTurn) state.debtHistory[state.debtHistory.length - 1] = merged;
  else state.debtHistory.push(merged);
  if (state.debtHistory.length > MAX_DEBT_HISTORY)
    state.debtHistory.splice(0, state.debtHistory.length - MAX_DEBT_HISTORY);
  state.lastDebt = merged;
  return merged;
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
  /** The turn the assembly prepares (committed turns + 1). */
  turn?: number;
  /** The user's turn it serves. */
  userTurn?: number;
}

/** Brings the tally up to date and reads the maintenance debt from it. */
export function readDebt(input: DebtInput): { tally: RawTally; debt: DebtReading } {
  const tally = advanceTally(input.raw, input.history, input.minEntryChars);
  const history = { rawHistoryTokens: tally.tokens, reducibleChars: tally.reducibleChars };
  return { tally, debt: debtReading(new Date().toISOString(), history, input, input) };
}

/** A reading from its figures: the debt is the raw history beyond the prompt budget. */
function debtReading(
  at: string,
  history: Pick<DebtReading, "rawHistoryTokens" | "reducibleChars">,
  prompt: Pick<DebtReading, "assembledTokens" | "promptBudget">,
  turns: Pick<DebtReading, "turn" | "userTurn">,
): DebtReading {
  return {
    at,
    rawHistoryTokens: history.rawHistoryTokens,
    assembledTokens: prompt.assembledTokens,
    promptBudget: prompt.promptBudget,
    debtTokens: Math.max(0, history.rawHistoryTokens - prompt.promptBudget),
    reducibleChars: history.reducibleChars,
    ...(turns.turn !== undefined ? { turn: turns.turn } : {}),
    ...(turns.userTurn !== undefined ? { userTurn: turns.userTurn } : {}),
  };
}
