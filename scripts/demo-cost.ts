/**
 * What each request cost: prompt tokens split into the part a provider's prompt cache
 * would serve (the messages that repeat the previous request's, from the start) and
 * the rest, plus the output allowance the host asked for. Pure, unit-tested.
 */
import type { Prices } from "./demo-cli.js";

/** Counts the tokens of one chat message (content + framing). */
export type MessageCounter = (message: unknown) => number;

/** One model request as the demo accounts for it. */
export interface RequestCost {
  /** Prompt tokens of the request's messages. */
  promptTokens: number;
  /** Tokens of the leading messages identical to the previous request's. */
  cachedTokens: number;
  /** Output allowance sent (`max_completion_tokens` or `max_tokens`), when present. */
  allowance: number | null;
  /** Completion tokens the model answered (mock: chars / 4). */
  outputTokens: number;
  /** True for a request that offered no tools: the host summarising (compaction) or titling. */
  noTools: boolean;
}

/** Sums of {@link RequestCost} over one engine's run, and dollars at the stated prices. */
export interface CostTotals {
  requests: number;
  promptTokens: number;
  cachedTokens: number;
  uncachedTokens: number;
  outputTokens: number;
  dollars: number;
}

/**
 * A counter that remembers each distinct message's count (requests repeat most
 * messages of the previous one, so each is counted once per run).
 */
export function memoCounter(count: MessageCounter): MessageCounter {
  const seen = new Map<string, number>();
  return (message) => {
    const key = JSON.stringify(message) ?? "";
    let n = seen.get(key);
    if (n === undefined) {
      n = count(message);
      seen.set(key, n);
    }
    return n;
  };
}

/** Number of leading messages of `next` equal (as JSON) to those of `prev`. */
export function commonPrefixLength(prev: readonly unknown[], next: readonly unknown[]): number {
  let i = 0;
  while (i < prev.length && i < next.length && JSON.stringify(prev[i]) === JSON.stringify(next[i])) i++;
  return i;
}

/** The output allowance a request body asked for, or null when it sent none. */
export function outputAllowance(body: Record<string, unknown>): number | null {
  const v = body.max_completion_tokens ?? body.max_tokens;
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** Accounts one request against the previous one (undefined for the first request of a run). */
export function requestCost(
  request: { messages: readonly unknown[]; body: Record<string, unknown>; toolNames: readonly string[] },
  previous: readonly unknown[] | undefined,
  count: MessageCounter,
  outputTokens: number,
): RequestCost {
  const tokens = request.messages.map((m) => count(m));
  const prefix = previous ? commonPrefixLength(previous, request.messages) : 0;
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  return {
    promptTokens: sum(tokens),
    cachedTokens: sum(tokens.slice(0, prefix)),
    allowance: outputAllowance(request.body),
    outputTokens,
    noTools: request.toolNames.length === 0,
  };
}

/** Totals and dollars: uncached input, cached input and output at their per-million prices. */
export function costTotals(requests: readonly RequestCost[], prices: Prices): CostTotals {
  const promptTokens = requests.reduce((s, r) => s + r.promptTokens, 0);
  const cachedTokens = requests.reduce((s, r) => s + r.cachedTokens, 0);
  const outputTokens = requests.reduce((s, r) => s + r.outputTokens, 0);
  const uncachedTokens = promptTokens - cachedTokens;
  const dollars =
    (uncachedTokens * prices.input + cachedTokens * prices.cachedInput + outputTokens * prices.output) / 1_000_000;
  return { requests: requests.length, promptTokens, cachedTokens, uncachedTokens, outputTokens, dollars };
}
