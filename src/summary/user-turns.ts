/**
 * The conversation's user messages, in order, whole: the part of the record the prompt contract
 * (docs/design.md) never condenses while they fit. Kept apart from the turn entries, which are indexed by
 * position in the list the host passes and restart when a host drops the list's front (2026.4.24 after a
 * compaction entry, 2026.9.6's byte-capped tail): a user message is identified by its words, so the turn it was
 * keeps its number however much of the front the host left out, and whatever form the host hands it back in.
 */
import { createHash } from "node:crypto";
import { blocksOf, isGenuineUserMessage, roleOf, timestampOf, withoutHostFraming } from "../host/messages.js";
import { redactSecrets } from "../results/redact.js";
import { stripLedgerBlocks } from "./extract-facts.js";

/** One user message of the conversation: its fingerprint and its text as the record keeps it (redacted). */
export interface UserTurn {
  fp: string;
  text: string;
  /** The message's time (ms), when it carries one. */
  at?: number;
}

/** A user message to quote, with its turn number in the conversation (1-based). */
export interface NumberedUserTurn {
  turn: number;
  text: string;
  at?: number;
}

/** The readable text of a genuine user message, or undefined for host internals and the engine's own blocks. */
export function genuineUserText(message: unknown): string | undefined {
  if (!isGenuineUserMessage(message)) return undefined;
  const parts: string[] = [];
  let images = 0;
  for (const block of blocksOf(message)) {
    if (typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image") images++;
  }
  const text = redactSecrets(stripLedgerBlocks(parts.join("\n"))).trim();
  if (!text && images === 0) return undefined;
  return images > 0 ? `${text}${text ? " " : ""}[${images} image${images > 1 ? "s" : ""}]` : text;
}

/** The identity of the first genuine user message in `messages` (see {@link alignUserTurns}), if any. */
export function firstUserFingerprint(messages: readonly unknown[]): string | undefined {
  for (const m of messages) {
    const text = genuineUserText(m);
    if (text !== undefined) return userKey(text);
  }
  return undefined;
}

/** True when `messages` hold a genuine user message of the record's conversation (`users`). */
export function showsKnownUser(users: readonly UserTurn[], messages: readonly unknown[]): boolean {
  if (users.length === 0) return false;
  const known = new Set(users.map((u) => u.fp));
  return messages.some((m) => {
    const text = genuineUserText(m);
    return text !== undefined && known.has(userKey(text));
  });
}

/** What {@link alignUserTurns} found. */
export interface AlignedUserTurns {
  /** The conversation's user messages, oldest first. */
  turns: UserTurn[];
  /** Turn number (1-based) of each genuine user message in the list, by its index. */
  turnAt: Map<number, number>;
}

/**
 * Aligns the record's user messages with the list the host passes now. The list's user messages continue the
 * record from the one it already knows (a host that dropped the front still shows a later one); a message that
 * differs from the record at its place (a rewind, an edit) replaces the record from there. A list whose first user
 * message the record does not know starts a new conversation, unless something comes before it (a compaction
 * summary, a tail's leftovers): then it continues after the known turns.
 */
export function alignUserTurns(known: readonly UserTurn[], messages: readonly unknown[]): AlignedUserTurns {
  const found: (UserTurn & { index: number })[] = [];
  let firstAt = -1;
  for (let i = 0; i < messages.length; i++) {
    const text = genuineUserText(messages[i]);
    if (text === undefined) continue;
    if (firstAt < 0) firstAt = i;
    const at = timestampOf(messages[i]);
    found.push({ index: i, fp: userKey(text), text, ...(at !== undefined ? { at } : {}) });
  }
  const turnAt = new Map<number, number>();
  if (found.length === 0) return { turns: [...known], turnAt };
  // A host may put a message of its own before the ones it kept (2026.9.6 opens a rebuilt transcript with
  // "(session bootstrap)"): the list continues the record from its first message the record knows.
  let lead = 0;
  let start = -1;
  for (; lead < found.length && start < 0; lead++) start = anchorOf(known, found.slice(lead));
  if (start >= 0) lead--;
  else {
    lead = 0;
    const frontDropped = messages.slice(0, firstAt).some((m) => roleOf(m) !== "system");
    start = frontDropped ? known.length : 0;
  }
  // The record ends with the list's newest user message: a later one it knew was rewound, or was the live message in
  // a form the host does not store (2026.4.24 adds the sender's metadata to it).
  const turns = known.slice(0, start);
  found.slice(lead).forEach((u, j) => {
    const at = start + j;
    const { index: _, ...turn } = u;
    turns.push(known[at]?.fp === u.fp ? known[at]! : turn);
    turnAt.set(u.index, at + 1);
  });
  return { turns, turnAt };
}

/**
 * Where the list's first user message sits in the record: the newest place from which the list agrees with the record
 * as far as both go (the same words can be sent twice), else the newest place with the same words; -1 when none.
 */
function anchorOf(known: readonly UserTurn[], found: readonly UserTurn[]): number {
  let fallback = -1;
  for (let k = known.length - 1; k >= 0; k--) {
    if (known[k]!.fp !== found[0]!.fp) continue;
    if (fallback < 0) fallback = k;
    let agrees = true;
    for (let j = 1; j < found.length && k + j < known.length; j++)
      if (known[k + j]!.fp !== found[j]!.fp) {
        agrees = false;
        break;
      }
    if (agrees) return k;
  }
  return fallback;
}

/** A user message's identity in the record: its words (the host stores one message in more than one form). */
function userKey(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 24);
}

/**
 * The user messages a window starting at list index `windowStart` does not show, numbered: every turn before the
 * first genuine user message at or after `windowStart` (all of them when the window holds none).
 */
export function userTurnsBefore(aligned: AlignedUserTurns, windowStart: number): NumberedUserTurn[] {
  let first = aligned.turns.length + 1;
  for (const [index, turn] of aligned.turnAt) if (index >= windowStart && turn < first) first = turn;
  return aligned.turns
    .slice(0, first - 1)
    .map((u, i) => ({ turn: i + 1, text: u.text, ...(u.at !== undefined ? { at: u.at } : {}) }));
}

/** Chars of a condensed message's quoted head: first the longest, then, if still over, every message, oldest first. */
const CONDENSED_HEADS = [300, 80] as const;
const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });

/**
 * A sentence's identity for counting repeats: case and spacing aside, and the turn number a message opens with as
 * its label (`Turn 12:`, `Step 12 -`: a user who numbers their messages repeats the sentence around it); any other
 * number keeps sentences apart ("set the timeout to 30", "to 60", "check svc-12").
 */
function sentenceKey(sentence: string, turn: number, first: boolean): string {
  const key = sentence.toLowerCase().replace(/\s+/g, " ").trim();
  return first ? key.replace(new RegExp(`^([a-z]*\\s*)${turn}(?!\\d)`), "$1#") : key;
}

function sentencesOf(text: string): string[] {
  return [...SENTENCES.segment(text)].map((s) => s.segment);
}

/** For each sentence key, the index of the newest message that says it. */
function newestSayer(turns: readonly NumberedUserTurn[]): Map<string, number> {
  const newest = new Map<string, number>();
  turns.forEach((u, i) => {
    for (const [k, s] of sentencesOf(u.text).entries()) newest.set(sentenceKey(s, u.turn, k === 0), i);
  });
  return newest;
}

/**
 * What message `i` says that no newer message repeats: its text with each run of sentences said again later left
 * out as "…" (a message said whole again later is "…" alone); its text itself when it repeats nothing.
 */
function unrepeatedPart(turns: readonly NumberedUserTurn[], i: number, text: string, newest: Map<string, number>) {
  const u = turns[i]!;
  const parts = sentencesOf(text).map((s, k) =>
    (newest.get(sentenceKey(s, u.turn, k === 0)) ?? i) > i ? undefined : s.trim(),
  );
  if (parts.every((p) => p !== undefined)) return text;
  return parts
    .filter((p, k) => p !== undefined || k === 0 || parts[k - 1] !== undefined)
    .map((p) => p ?? "…")
    .join(" ");
}

/** The heading of the quoted user messages in a summary block. */
export const USER_TURNS_HEADING = "What the user wrote in those turns, each message quoted whole (as a JSON string):";
/** The line under {@link USER_TURNS_HEADING} when some message is condensed: the share it keeps to, and how. */
export function condensedNote(maxChars: number): string {
  return `(Quoted whole, these messages would pass ${maxChars.toLocaleString("en-US")} chars, their share of the prompt: a condensed message keeps what no later message repeats; "…" stands for sentences quoted under a later turn, or cut off.)`;
}

/** What {@link renderUserTurns} rendered. */
export interface RenderedUserTurns {
  text: string;
  /** Messages condensed (each says so, with its size). */
  condensed: number;
}

/**
 * The user's messages, one line each, `Turn N: "<the message as a JSON string>"`, without what the host put at
 * their front ({@link withoutHostFraming}; the summary message carries the time). Over `maxChars` they are
 * condensed, each condensed line stating the message's size (`Turn N (condensed from 12,345 chars): "…"`) and the
 * block stating the share ({@link condensedNote}): the longest first to a quoted head of 300 chars; then, oldest
 * first, every message to what no newer message repeats (a sentence said again later, the turn number aside, gives
 * way to "…", so each sentence stays quoted at least once); then every message to a head of 80 chars. When even
 * those do not fit, the oldest are left out under one line that says so (`Turns 1-40 (left out: …)`); only the
 * newest message alone can exceed `maxChars`.
 */
export function renderUserTurns(quoted: readonly NumberedUserTurn[], maxChars = Infinity): RenderedUserTurns {
  if (quoted.length === 0) return { text: "", condensed: 0 };
  const turns = quoted.map((u) => ({ ...u, text: withoutHostFraming(u.text) }));
  const lines = turns.map((u) => `Turn ${u.turn}: ${JSON.stringify(u.text)}`);
  let total = USER_TURNS_HEADING.length + lines.reduce((sum, l) => sum + l.length + 1, 0);
  const note = condensedNote(maxChars);
  if (total > maxChars) total += note.length + 1;
  const shortened = new Set<number>();
  const current = turns.map((u) => u.text);
  const condense = (i: number, shorter: string): void => {
    const u = turns[i]!;
    if (shorter.length >= current[i]!.length) return;
    const line = `Turn ${u.turn} (condensed from ${u.text.length.toLocaleString("en-US")} chars): ${JSON.stringify(shorter)}`;
    if (line.length >= lines[i]!.length) return;
    total += line.length - lines[i]!.length;
    lines[i] = line;
    current[i] = shorter;
    shortened.add(i);
  };
  const headOf = (i: number, head: number): string => {
    const text = current[i]!;
    return text.length <= head ? text : `${text.slice(0, head)}…`;
  };
  const longestFirst = turns.map((u, i) => ({ i, len: u.text.length })).sort((a, b) => b.len - a.len || a.i - b.i);
  for (const { i } of longestFirst) {
    if (total <= maxChars) break;
    condense(i, headOf(i, CONDENSED_HEADS[0]));
  }
  if (total > maxChars) {
    const newest = newestSayer(turns);
    for (let i = 0; i < turns.length && total > maxChars; i++)
      condense(i, unrepeatedPart(turns, i, current[i]!, newest));
  }
  for (let i = 0; i < turns.length && total > maxChars; i++) condense(i, headOf(i, CONDENSED_HEADS[1]));
  // Still over: the oldest messages are left out, and one line says which and where they are kept.
  let omitted = 0;
  const leftOut = (k: number): string =>
    `Turns ${turns[0]!.turn}-${turns[k - 1]!.turn} (left out: ${k} older messages over the summary's share of the prompt; the session's summary record and its checkpoints keep them)`;
  let rest = total;
  while (total > maxChars && omitted < turns.length - 1) {
    rest -= lines[omitted]!.length + 1;
    omitted++;
    total = rest + leftOut(omitted).length + 1;
  }
  const shown = omitted > 0 ? [leftOut(omitted), ...lines.slice(omitted)] : lines;
  const condensed = shortened.size + omitted;
  const heading = condensed > 0 ? [USER_TURNS_HEADING, note] : [USER_TURNS_HEADING];
  return { text: [...heading, ...shown].join("\n"), condensed };
}
