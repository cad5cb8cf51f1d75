/**
 * The prompt contract (docs/design.md, "The prompt contract"), judged on the request bodies the model received:
 * what the model read, not what it answered. Pure: it takes the requests of one conversation and the user messages
 * sent into it, and names every request that breaks a clause, with the clause.
 */
import { isInternalContextMessage, textOfMessage } from "./mock-wire.js";
import type { MockRequest } from "./mock-model.js";
import type { ContractClause } from "../../src/state/view-record.js";

/** The clauses, as `docs/design.md` numbers them: the engine's own record names them alike. */
export type { ContractClause };

/** One broken clause in one request. */
export interface ContractViolation {
  /** The request's position among all requests the mock received. */
  request: number;
  clause: ContractClause;
  detail: string;
}

/** A user message sent into the conversation: its text, and how many requests the mock had received before it. */
export interface SentUserMessage {
  text: string;
  requestsBefore: number;
}

/** First line of the engine's summary block. */
export const SUMMARY_OPEN = "[context-ledger summary]";
/** 2026.4.24's wrapper around a compaction entry's summary. */
export const HOST_COMPACTION_WRAPPER =
  "The conversation history before this point was compacted into the following summary";
/** Smallest user message the engine may replace by a stub (`reduce-user-turn`). */
export const USER_STUB_FLOOR_CHARS = 4_000;

const STUB_HEAD = /^\[context-ledger artifact (ledger:v1:sha256:[0-9a-f]{64})\]/;
const HANDLE = /ledger:v1:sha256:[0-9a-f]{64}/g;
const STATED_SIZE = /· ([\d,]+) chars/;
/** A condensed quote states the size of what it condenses: `Turn 7 (condensed from 12,345 chars): "…"`. */
const CONDENSED = (turn: number): RegExp =>
  new RegExp(`Turn ${turn} \\(condensed from ([\\d,]+) chars\\): (".*")$`, "m");
/** The block's statement that its quoted messages passed their share: `(Quoted whole, … would pass 5,400 chars, …`. */
const OVER_SHARE = /^\(Quoted whole, these messages would pass ([\d,]+) chars, their share of the prompt/m;
const number = (text: string): number => Number(text.replace(/,/g, ""));

/**
 * Whether a condensed quote of user message `turn` keeps the contract: the block states its share, the messages it
 * quotes would pass that share whole, the line states the message's true size, and every piece it keeps between
 * "…" is the message's own words.
 */
function condensedHonestly(summaryText: string, conversation: readonly string[], turn: number): boolean {
  const line = CONDENSED(turn).exec(summaryText);
  const share = OVER_SHARE.exec(summaryText);
  if (!line || !share) return false;
  const text = conversation[turn - 1] ?? "";
  const quotedTurns = [...summaryText.matchAll(/^Turn (\d+)(?: \(condensed from [\d,]+ chars\))?: "/gm)].map((m) =>
    Number(m[1]),
  );
  // Whole, as the engine counts them: the heading (the line above the statement) and one line per quoted message.
  const heading = summaryText.slice(summaryText.lastIndexOf("\n", share.index - 2) + 1, share.index - 1);
  const whole = quotedTurns.reduce(
    (sum, t) => sum + `Turn ${t}: ${JSON.stringify(conversation[t - 1] ?? "")}`.length + 1,
    heading.length,
  );
  const kept = (JSON.parse(line[2]!) as string).split("…").map((piece) => piece.trim());
  return (
    whole > number(share[1]!) &&
    number(line[1]!) === text.length &&
    kept.every((piece) => piece === "" || text.includes(piece))
  );
}

interface Parts {
  role: string;
  texts: string[];
  message: Record<string, unknown>;
}

function partsOf(message: unknown): Parts {
  const m = (message ?? {}) as Record<string, unknown>;
  const content = m.content;
  const texts =
    typeof content === "string"
      ? [content]
      : Array.isArray(content)
        ? content.flatMap((p) =>
            typeof (p as { text?: unknown })?.text === "string" ? [(p as { text: string }).text] : [],
          )
        : [];
  return { role: typeof m.role === "string" ? m.role : "unknown", texts, message: m };
}

/**
 * The conversation's user messages as of request `requestIndex`: `/new` and `/reset` start a new one, and other
 * commands are not in it.
 */
export function conversationAt(sent: readonly SentUserMessage[], requestIndex: number): string[] {
  let conversation: string[] = [];
  for (const s of sent) {
    if (s.requestsBefore > requestIndex) break;
    const text = s.text.trim();
    if (/^\/(?:new|reset)\b/.test(text)) conversation = [];
    else if (!text.startsWith("/")) conversation.push(s.text);
  }
  return conversation;
}

/**
 * Every violation of the contract in `requests` (one conversation's, in order), given the user messages sent into it.
 * `storedHandles`, when given, is every handle the store holds: a handle in a prompt that is not there is a violation.
 */
export function checkPromptContract(
  requests: readonly MockRequest[],
  sent: readonly SentUserMessage[],
  storedHandles?: ReadonlySet<string>,
): ContractViolation[] {
  const out: ContractViolation[] = [];
  for (const r of requests) {
    const push = (clause: ContractClause, detail: string): void => {
      out.push({ request: r.index, clause, detail });
    };
    const parts = r.messages.map(partsOf);
    const userTexts = parts.filter((p) => p.role === "user").flatMap((p) => p.texts);
    const all = parts.flatMap((p) => p.texts);
    const summaries = all.filter((t) => t.includes(SUMMARY_OPEN) || t.includes(HOST_COMPACTION_WRAPPER));
    const summaryText = summaries.join("\n");
    if (summaries.length > 1) push("one-summary", `${summaries.length} summary blocks`);
    const conversation = conversationAt(sent, r.index);
    conversation.forEach((text, i) => {
      const turn = i + 1;
      if (userTexts.some((t) => !t.includes(SUMMARY_OPEN) && t.includes(text))) return;
      const quoted = JSON.stringify(text).slice(1, -1);
      const at = summaryText.indexOf(quoted);
      if (at >= 0) {
        const label = `Turn ${turn}: "`;
        const before = summaryText.slice(Math.max(0, at - 200), at);
        const labelAt = before.lastIndexOf("Turn ");
        if (labelAt < 0 || !before.slice(labelAt).startsWith(label))
          push("turn-numbers", `user message ${turn} quoted under "${before.slice(labelAt, labelAt + 20)}"`);
        return;
      }
      if (condensedHonestly(summaryText, conversation, turn)) return;
      push("user-messages", `user message ${turn} (${text.length} chars: "${text.slice(0, 60)}") is not in the prompt`);
    });
    for (const p of parts) {
      for (const t of p.texts) {
        if (/\b1970-01-01\b/.test(t)) push("real-dates", `a ${p.role} message dated 1970-01-01`);
        const stub = STUB_HEAD.exec(t);
        if (!stub) continue;
        const stated = STATED_SIZE.exec(t);
        const original = stated ? Number(stated[1]!.replace(/,/g, "")) : undefined;
        if (original !== undefined && t.length >= original)
          push("stub-size", `a ${t.length}-char stub stands for ${original} chars (${stub[1]!.slice(17, 29)})`);
        if (p.role === "user" && original !== undefined && original < USER_STUB_FLOOR_CHARS)
          push("user-stub-floor", `a ${original}-char user message part was stubbed`);
      }
    }
    checkTurnLabels(summaryText, conversation.length, push);
    checkToolPairs(parts, push);
    if (storedHandles) {
      const handles = new Set(all.flatMap((t) => t.match(HANDLE) ?? []));
      for (const h of handles) if (!storedHandles.has(h)) push("handles-resolve", `${h.slice(17, 29)} is not stored`);
    }
  }
  return out;
}

/**
 * The summary's own turn labels count the conversation's turns: no label past the user messages sent so far, and no
 * turn told twice in detail ("Turns 1-23 (condensed; …)" for 16 turns told a turn twice).
 */
function checkTurnLabels(
  summaryText: string,
  turns: number,
  push: (clause: ContractClause, detail: string) => void,
): void {
  const told = /^Earlier conversation: turns 1-(\d+),/m.exec(summaryText);
  if (told && Number(told[1]) > turns) push("turn-numbers", `the summary tells turns 1-${told[1]} of ${turns}`);
  const condensed = /^Turns (\d+)-(\d+) \(condensed; /m.exec(summaryText);
  if (condensed && Number(condensed[2]) > (told ? Number(told[1]) : turns))
    push("turn-numbers", `the condensed part is titled turns ${condensed[1]}-${condensed[2]}`);
  const detailed = [...summaryText.matchAll(/^Turn (\d+): (?:Answer|Tools|Assistant)\b/gm)].map((m) => Number(m[1]));
  const twice = detailed.filter((n, i) => detailed.indexOf(n) !== i);
  if (twice.length > 0) push("turn-numbers", `turn ${twice[0]} told twice in detail`);
}

function checkToolPairs(parts: readonly Parts[], push: (clause: ContractClause, detail: string) => void): void {
  const open = new Set<string>();
  for (const p of parts) {
    const calls = p.message.tool_calls;
    if (p.role === "assistant" && Array.isArray(calls)) {
      for (const id of open) push("tool-pairs", `call ${id} has no result before the next assistant message`);
      open.clear();
      for (const c of calls) {
        const id = (c as { id?: unknown }).id;
        if (typeof id === "string") open.add(id);
      }
    } else if (p.role === "tool") {
      const id = p.message.tool_call_id;
      if (typeof id !== "string" || !open.delete(id)) push("tool-pairs", `result ${String(id)} answers no open call`);
    } else if (open.size > 0 && !(p.role === "user" && isInternalContextMessage(p.message))) {
      for (const id of open) push("tool-pairs", `call ${id} has no result before a ${p.role} message`);
      open.clear();
    }
  }
}

/** The requests of a conversation the contract applies to: those answering one of its genuine user messages. */
export function conversationRequests(
  requests: readonly MockRequest[],
  sent: readonly SentUserMessage[],
): MockRequest[] {
  const texts = new Set(sent.map((s) => s.text));
  return requests.filter(
    (r) => [...texts].some((t) => r.userText.includes(t)) && !textOfMessage(r.lastMessage).startsWith("/"),
  );
}
