/**
 * What a session's model requests cost as each provider bills its input, from the usage the
 * strict mock reported per request: one price table per wire, stated here.
 */
import type { MockRequest } from "./mock-model.js";
import type { WireName, WireUsage } from "./wires.js";

/** Input prices in USD per million tokens. */
export interface InputPrices {
  /** Whose list price. */
  model: string;
  uncachedPerM: number;
  cacheReadPerM: number;
  /** Cache writes with the default 5-minute TTL. */
  cacheWrite5mPerM: number;
  cacheWrite1hPerM: number;
}

/**
 * The price table of the figures, per wire (list prices, 2026): GPT-5 on both OpenAI wires (no cache-write charge),
 * Claude Sonnet 4.x on Anthropic's (writes 1.25x input for 5 minutes, 2x for 1 hour; reads 0.1x).
 */
export const WIRE_INPUT_PRICES: Readonly<Record<WireName, InputPrices>> = {
  "openai-completions": {
    model: "gpt-5",
    uncachedPerM: 1.25,
    cacheReadPerM: 0.125,
    cacheWrite5mPerM: 0,
    cacheWrite1hPerM: 0,
  },
  "openai-responses": {
    model: "gpt-5",
    uncachedPerM: 1.25,
    cacheReadPerM: 0.125,
    cacheWrite5mPerM: 0,
    cacheWrite1hPerM: 0,
  },
  "anthropic-messages": {
    model: "claude-sonnet-4",
    uncachedPerM: 3,
    cacheReadPerM: 0.3,
    cacheWrite5mPerM: 3.75,
    cacheWrite1hPerM: 6,
  },
};

/** Input cost in USD of one request's usage on `wire`. */
export function wireInputCost(wire: WireName, usage: WireUsage): number {
  const p = WIRE_INPUT_PRICES[wire];
  const write1h = usage.cacheWrite1hTokens ?? 0;
  const uncached = usage.promptTokens - usage.cachedTokens - usage.cacheWriteTokens;
  return (
    (uncached * p.uncachedPerM +
      usage.cachedTokens * p.cacheReadPerM +
      (usage.cacheWriteTokens - write1h) * p.cacheWrite5mPerM +
      write1h * p.cacheWrite1hPerM) /
    1_000_000
  );
}

/** One run's bill, as the provider mock saw and reported it. */
export interface WireBill {
  wire: WireName;
  requests: number;
  /** Requests the strict mock refused (enforce), with the provider's error. */
  rejected: string[];
  /** Requests a strict mock would have refused, answered for a control engine (observe). */
  violations: string[];
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  cachedShare: number | null;
  inputCostUsd: number;
}

/**
 * The bill of `requests` (all on `wire`): tokens and cost of the answered ones (a refused request bills nothing);
 * a request without usage (a lenient mock's) counts as nothing.
 */
export function billRequests(wire: WireName, requests: readonly MockRequest[]): WireBill {
  const usage = requests
    .filter((r) => r.rejected === undefined)
    .map((r) => r.usage ?? { promptTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 });
  const sum = (pick: (u: WireUsage) => number) => usage.reduce((s, u) => s + pick(u), 0);
  const promptTokens = sum((u) => u.promptTokens);
  const cachedTokens = sum((u) => u.cachedTokens);
  return {
    wire,
    requests: requests.length,
    rejected: requests.filter((r) => r.rejected !== undefined).map((r) => `turn ${r.turn}: ${String(r.rejected)}`),
    violations: requests.filter((r) => r.violation !== undefined).map((r) => `turn ${r.turn}: ${String(r.violation)}`),
    promptTokens,
    cachedTokens,
    cacheWriteTokens: sum((u) => u.cacheWriteTokens),
    cachedShare: promptTokens > 0 ? Math.round((cachedTokens / promptTokens) * 1000) / 1000 : null,
    inputCostUsd: Math.round(usage.reduce((s, u) => s + wireInputCost(wire, u), 0) * 10_000) / 10_000,
  };
}

/** The header of {@link billRow}'s table. */
export const BILL_TABLE_HEADER = [
  "| engine | wire | turns answered | requests | rejected | prompt tokens | cached | cache writes | input cost |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
].join("\n");

/** One run's bill as a markdown table row. */
export function billRow(engine: string, answered: string, bill: WireBill): string {
  const cached = bill.cachedShare === null ? "-" : `${(bill.cachedShare * 100).toFixed(1)}%`;
  const cells = [
    engine,
    bill.wire,
    answered,
    bill.requests,
    bill.rejected.length,
    bill.promptTokens,
    cached,
    bill.cacheWriteTokens,
    `$${bill.inputCostUsd.toFixed(4)}`,
  ];
  return `| ${cells.join(" | ")} |`;
}
