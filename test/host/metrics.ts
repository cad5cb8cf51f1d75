import type { TurnRecord } from "./gateway-session.js";
import type { MockRequest } from "./mock-model.js";
import { countMessageTokens, type TokenCounter } from "./token-count.js";

/** Prompt tokens of one request as the host sent it (messages only, framing included). */
export function requestPromptTokens(request: MockRequest, counter: TokenCounter): number {
  return countMessageTokens(request.messages, counter);
}

/** Per turn, the prompt tokens of each model request the host made in it. */
export function promptTokensPerTurn(records: readonly TurnRecord[], counter: TokenCounter): number[][] {
  return records.map((r) => r.requests.map((q) => requestPromptTokens(q, counter)));
}

/** Largest value over smallest (Infinity when the smallest is 0, NaN when empty): a band of per-turn figures. */
export function bandRatio(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const min = Math.min(...values);
  const max = Math.max(...values);
  return min === 0 ? Number.POSITIVE_INFINITY : max / min;
}

/** Requests whose prompt exceeds `budget` tokens (every request should be within the prompt budget). */
export function requestsOverBudget(
  records: readonly TurnRecord[],
  budget: number,
  counter: TokenCounter,
): MockRequest[] {
  return records.flatMap((r) => r.requests).filter((q) => requestPromptTokens(q, counter) > budget);
}
