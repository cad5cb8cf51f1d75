/**
 * What each request cost, as a provider bills it: prompt tokens (tool schemas and messages)
 * split into the part its prefix cache serves and the rest, plus the output allowance the
 * host asked for. Pure, unit-tested.
 */
import type { Prices } from "./demo-cli.js";

/** Counts the tokens of one chat message (content + framing). */
export type MessageCounter = (message: unknown) => number;

/** One model request as the demo accounts for it. */
export interface RequestCost {
  /** Prompt tokens of the request (tool schemas and messages) as the provider counts them. */
  promptTokens: number;
  /** Of those, the tokens the provider's prefix cache served. */
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

/** The output allowance a request body asked for, or null when it sent none. */
export function outputAllowance(body: Record<string, unknown>): number | null {
  const v = body.max_completion_tokens ?? body.max_tokens;
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** What a provider makes of a request body: prompt tokens and the part its prefix cache served. */
export interface ProviderCount {
  check(body: Record<string, unknown>): { promptTokens: number; cachedTokens?: number };
}

/**
 * Accounts one request as the provider bills it: `provider` (the strict OpenAI rules, replayed in request
 * order) counts the tool schemas and messages with a real BPE and serves a shared prefix from its cache
 * (from 1,024 tokens, in 128-token steps).
 */
export function requestCost(
  request: { body: Record<string, unknown>; toolNames: readonly string[] },
  provider: ProviderCount,
  outputTokens: number,
): RequestCost {
  const counted = provider.check(request.body);
  return {
    promptTokens: counted.promptTokens,
    cachedTokens: counted.cachedTokens ?? 0,
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
