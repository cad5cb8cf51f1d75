/**
 * How the demo judges a turn: by what the session's `chat.history` shows once the
 * engine's post-turn work is done, the way a user who reopens the chat sees it. A turn
 * is answered only when the answer the model wrote is there once, byte for byte, with
 * no host notice and no clamped output allowance (a real model's answer would stop at
 * the clamp). Pure: the demo reads the history and the model's replies, this decides.
 */
import { RESET_REPLY } from "../test/host/logs.js";
import { isHostNotice } from "../test/host/turn-as-seen.js";

/**
 * Texts shown in place of an answer: an engine's stub of a stored output, the host's
 * own placeholder for an oversized message.
 */
export const PLACEHOLDER_PATTERNS: readonly RegExp[] = [
  /^\[context-ledger artifact\b/,
  /^\[chat\.history omitted\b/,
  /^\[[^\]]*\bstub\b/i,
];

/** True when `text` is a placeholder standing in for a message, not the message. */
export function isPlaceholder(text: string): boolean {
  return PLACEHOLDER_PATTERNS.some((p) => p.test(text));
}

/** What one turn left in the history, and what the model wrote for it. */
export interface TurnEvidence {
  /** Assistant texts `chat.history` shows after the turn's user message, read after the post-turn work. */
  shown: readonly string[];
  /**
   * The final answers the model wrote for the turn (a mock's replies); null when they are not known
   * (a real endpoint), then any shown text that is no notice and no placeholder counts.
   */
  written: readonly string[] | null;
  /** How the turn's run ended (`agent.wait` status). */
  waitStatus: string;
  /** Requests of the turn whose output allowance was below the model's maxTokens. */
  clamped: number;
}

/**
 * What the user saw, as the table prints it: `answered`, `cut off` (answer shown but its request's output
 * allowance was clamped), `stub shown`, `answer altered` (a text that begins like the answer but is not it),
 * `answer shown N×`, `reset notice`, `host notice`, the run's own status (`error`, `timeout`), `not answered`
 * (something else was shown) or `no reply`.
 */
export interface TurnJudgement {
  status: string;
  /** Counted as an answered turn: the answer was shown once, whole, and no request of the turn was clamped. */
  answered: boolean;
}

// Long enough that two different answers of the workload never share it (they begin "Answer N: <words>").
const SAME_START_CHARS = 64;

function resembles(text: string, answer: string): boolean {
  const head = Math.min(SAME_START_CHARS, answer.length, text.length);
  return head > 0 && text.slice(0, head) === answer.slice(0, head);
}

/** Judges one turn from the history as shown (see {@link TurnEvidence}). */
export function judgeTurn(evidence: TurnEvidence): TurnJudgement {
  const { shown, written, waitStatus, clamped } = evidence;
  const failed = (status: string): TurnJudgement => ({ status, answered: false });
  if (shown.some((t) => t.includes(RESET_REPLY))) return failed("reset notice");
  if (shown.some(isHostNotice)) return failed("host notice");
  const whole = (status: string): TurnJudgement =>
    clamped > 0 ? failed("cut off") : { status, answered: status === "answered" };
  if (written === null) {
    if (shown.some((t) => !isPlaceholder(t))) return whole("answered");
  } else {
    const answers = new Set(written);
    const times = shown.filter((t) => answers.has(t)).length;
    if (times === 1) return whole("answered");
    if (times > 1) return failed(`answer shown ${times}×`);
  }
  if (shown.some(isPlaceholder)) return failed("stub shown");
  if (written?.some((a) => shown.some((t) => resembles(t, a)))) return failed("answer altered");
  if (waitStatus !== "ok") return failed(waitStatus);
  return failed(shown.length > 0 ? "not answered" : "no reply");
}

/** A row of the demo as the verdict counts it. */
export interface CountedTurn {
  status: string;
  clamped: number;
}

/**
 * True when the turn counts as answered: the user saw the model's answer, whole, and no request of the turn had
 * its output allowance clamped (rows saved before the clamp counted as a failure are judged the same way).
 */
export function turnAnswered(row: CountedTurn): boolean {
  return row.status === "answered" && row.clamped === 0;
}
