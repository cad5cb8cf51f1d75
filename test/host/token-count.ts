/**
 * Token counting for what the host really sent to the mock model. Exact BPE
 * (o200k_base) on bounded pieces: every JS BPE is quadratic on long runs of one
 * character, so text is cut at line breaks and runs are split into short chunks
 * first. Splitting can only add tokens (a merge across a cut is lost), so the
 * count errs upward, never downward.
 */
import type { Tiktoken } from "js-tiktoken/lite";

/** Counts the tokens of one string. */
export type TokenCounter = (text: string) => number;

/** Tokens added per chat message for role and framing (OpenAI's documented rule of thumb). */
export const MESSAGE_FRAMING_TOKENS = 4;

const PIECE_CHARS = 2_000;
const RUN_CHARS = 64;

let encoderPromise: Promise<Tiktoken> | undefined;

async function loadEncoder(): Promise<Tiktoken> {
  const { Tiktoken: Encoder } = await import("js-tiktoken/lite");
  const ranks = (await import("js-tiktoken/ranks/o200k_base")).default;
  return new Encoder(ranks);
}

/** Splits text into pieces that keep BPE linear: ≤ 2,000 chars, cut at line breaks, runs ≤ 64 chars. */
export function splitForCounting(text: string): string[] {
  const pieces: string[] = [];
  const runSafe = text.replace(/(.)\1{63,}/gsu, (run) => {
    let out = "";
    for (let i = 0; i < run.length; i += RUN_CHARS) out += `${run.slice(i, i + RUN_CHARS)}\u0000`;
    return out;
  });
  for (const part of runSafe.split("\u0000")) {
    let start = 0;
    while (start < part.length) {
      let end = Math.min(part.length, start + PIECE_CHARS);
      if (end < part.length) {
        const nl = part.lastIndexOf("\n", end);
        if (nl > start) end = nl + 1;
      }
      pieces.push(part.slice(start, end));
      start = end;
    }
  }
  return pieces;
}

/**
 * The shared o200k_base counter, loaded lazily once per process (~0.7 s, ~170 MB).
 * Linear on any input; may count a few tokens more than an unsplit encode.
 */
export async function loadTokenCounter(): Promise<TokenCounter> {
  encoderPromise ??= loadEncoder();
  const encoder = await encoderPromise;
  return (text) => {
    let total = 0;
    for (const piece of splitForCounting(text)) total += encoder.encode(piece, [], []).length;
    return total;
  };
}

/** Flattens one OpenAI chat message (string or parts content, tool calls) into countable text. */
export function messageText(message: unknown): string {
  if (!message || typeof message !== "object") return "";
  const m = message as { content?: unknown; tool_calls?: unknown };
  let text = "";
  if (typeof m.content === "string") text += m.content;
  else if (Array.isArray(m.content)) {
    for (const part of m.content) {
      const p = part as { type?: unknown; text?: unknown };
      if (typeof p?.text === "string") text += p.text;
    }
  }
  if (Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls) {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } })?.function;
      text += `${String(fn?.name ?? "")}${String(fn?.arguments ?? "")}`;
    }
  }
  return text;
}

/** Tokens of a list of chat messages: content plus {@link MESSAGE_FRAMING_TOKENS} per message. */
export function countMessageTokens(messages: readonly unknown[], counter: TokenCounter): number {
  let total = 0;
  for (const message of messages) total += counter(messageText(message)) + MESSAGE_FRAMING_TOKENS;
  return total;
}
