/**
 * What assembly needs from the rest of the plugin, as narrow interfaces the engine
 * wires (`engine/assembly-ports.ts`). Assembly plans and shapes; where a tool output's
 * capture, the session summary or the operators' record of the view live is not its
 * business, so it imports none of that code.
 */
import type { AgentSettings } from "../config/schema.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { DebtInput, DebtReading } from "../host/raw-tally.js";
import type { TokenCounter } from "../tokens/count-message.js";

/** The exact counter assembly counts with (the runtime's, handed in through the call). */
export type { TokenCounter };

/** The stored original a host-cut tool result verifiably derives from. */
export interface CapturedOriginal {
  handle: string;
  /** Chars and lines of the stored original. */
  chars: number;
  lines: number;
  /** Why the capture is known not to be the whole output, if it is not. */
  partial?: string;
  /** Its text, for the stub's summary and preview (undefined when it cannot be read back). */
  text: string | undefined;
}

/** Finds the captured original of one tool result: the id the host stored and the host's (maybe cut) text. */
export type FindCapturedOriginal = (hostId: string, hostText: string) => CapturedOriginal | undefined;

/** What the summary port is asked for one view. */
export interface SummaryRequest {
  /** The history the view was planned on. */
  messages: readonly unknown[];
  /** First index the window keeps: the summary tells the turns before it. */
  windowStart: number;
  /** The fingerprint of `messages[index]`, from the view's table (computed once per message). */
  fingerprint: (index: number) => string;
  /** Exact tokens of the window as planned. */
  windowTokens: number;
  /** Exact tokens still free inside the budget after the kept messages. */
  budgetLeft: number;
  counter: TokenCounter;
  /** The time the summary message carries: that of the newest message it tells (see `summaryMessage`). */
  timestamp?: number;
  /** The view's prompt budget (its budget class keys what the next plan reserves for quoted user messages). */
  budgetTokens: number;
  /**
   * The host passed no usable budget and the engine raised it to its floor (2026.9.6 passes 1 inside a turn): the
   * room is no measure of the host's window, so the user messages are quoted whole whatever it holds.
   */
  budgetRaised?: boolean;
  /**
   * `messages` is the engine's own view handed back inside a turn (2026.9.x), not the transcript: the block is
   * rendered from a copy of the record brought up to it, and the record itself is left as the transcript showed it.
   */
  handedBack?: boolean;
}

/** The summary block of one view (no text: nothing injected) and its exact tokens. */
export interface ViewSummary {
  text?: string;
  tokens: number;
  /** The time of the newest message the block quotes, when it quotes one (the summary message carries it). */
  timestamp?: number;
  /** Chars the block wanted at full size (it may have been rendered smaller to fit the room). */
  wantedChars?: number;
}

/** What the model is about to see, for `context-ledger view` and `/ledger view`. */
export interface ViewSnapshot {
  turn: number;
  /** The history the model is shown, before shaping (what the prompt contract's user-message clause reads). */
  shown: readonly unknown[];
  kept: readonly unknown[];
  keptIndexes: readonly number[];
  tokensOf: (i: number) => number;
  total: number;
  budget: { tokens: number; messageBudget: number };
  estimatedTokens: number;
  plan: { start: number; reason: string; replanned: boolean; overBudget: boolean; excluded: number };
  summary: { text: string | undefined; tokens: number };
  debt: DebtReading;
  handles: ReadonlySet<string>;
}

/** The ports of one engine's assembly. */
export interface AssemblyPorts {
  /** Waits, bounded, for the session's tool-output captures still being stored. */
  settleCaptures(identity: SessionIdentity): Promise<void>;
  /** The capture lookup of one session (one per assemble call). */
  capturedOriginals(identity: SessionIdentity): FindCapturedOriginal;
  /** The summary block for a window, within the room left; `{ tokens: 0 }` when none is due. */
  summary(settings: AgentSettings, identity: SessionIdentity, request: SummaryRequest): Promise<ViewSummary>;
  /**
   * Whether a summary block handed back inside a turn still quotes every user message `messages` do not show (a host
   * may trim the handed-back view's front); when not, a fresh block is due.
   */
  carriedSummaryHolds(identity: SessionIdentity, messages: readonly unknown[], carriedText: string): boolean;
  /**
   * Reads the maintenance debt of the raw history (what a raw-history precheck would size) and records it in the
   * session's state in the background; returns the turn's reading so far (this assembly merged with the turn's
   * earlier ones: the main prompt's budget and size, `host/raw-tally.ts` `turnReading`). Measured, never acted on in
   * assembly.
   */
  measureDebt(identity: SessionIdentity, input: DebtInput): DebtReading;
  /** Records the view in the background (never throws; flushed on dispose). */
  recordView(settings: AgentSettings, identity: SessionIdentity, snapshot: ViewSnapshot): void;
}
