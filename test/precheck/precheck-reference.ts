/**
 * The hosts' pre-prompt overflow precheck rules, reproduced from the shipped
 * code for regression tests (not used by the plugin).
 *
 * 2026.4.24: estimate = ceil((chars/4 of the LARGER of the assembled and the
 * unwindowed messages + system prompt + prompt) * 1.2); budget = window minus
 * the reserve (the reserve never eats more than the window minus
 * min(8000, window/2)); over budget → compaction (then reset after 3 tries).
 * 2026.9.x: the assembled estimate only, and engines with ownsCompaction skip it.
 */
import { estimateRawTokens } from "../../src/host/raw-tally.js";

/** 2026.4.24 `SAFETY_MARGIN`. */
export const SAFETY_MARGIN_424 = 1.2;
/** 2026.4.24 `MIN_PROMPT_BUDGET_TOKENS` / `_RATIO`. */
export const MIN_PROMPT_BUDGET_TOKENS = 8_000;
export const MIN_PROMPT_BUDGET_RATIO = 0.5;

/** Inputs common to both rules. */
export interface PrecheckInput {
  assembled: readonly unknown[];
  unwindowed: readonly unknown[];
  systemPromptChars: number;
  promptChars: number;
  contextWindow: number;
  reserveTokens: number;
}

/** What a precheck decided. */
export interface PrecheckVerdict {
  estimatedPromptTokens: number;
  promptBudgetBeforeReserve: number;
  overflowTokens: number;
  route: "fits" | "compact";
}

const sum = (messages: readonly unknown[]) => messages.reduce<number>((s, m) => s + estimateRawTokens(m), 0);

function budgetOf(input: PrecheckInput): number {
  const minPrompt = Math.min(
    MIN_PROMPT_BUDGET_TOKENS,
    Math.max(1, Math.floor(input.contextWindow * MIN_PROMPT_BUDGET_RATIO)),
  );
  const reserve = Math.min(input.reserveTokens, Math.max(0, input.contextWindow - minPrompt));
  return Math.max(1, input.contextWindow - reserve);
}

function verdict(messagesTokens: number, input: PrecheckInput): PrecheckVerdict {
  const estimated = Math.ceil(
    (messagesTokens + Math.ceil(input.systemPromptChars / 4) + Math.ceil(input.promptChars / 4)) * SAFETY_MARGIN_424,
  );
  const promptBudgetBeforeReserve = budgetOf(input);
  const overflowTokens = Math.max(0, estimated - promptBudgetBeforeReserve);
  return {
    estimatedPromptTokens: estimated,
    promptBudgetBeforeReserve,
    overflowTokens,
    route: overflowTokens > 0 ? "compact" : "fits",
  };
}

/** The 2026.4.24 rule: max of the unwindowed and the assembled estimate. */
export function precheck424(input: PrecheckInput): PrecheckVerdict {
  return verdict(Math.max(sum(input.assembled), sum(input.unwindowed)), input);
}

/** The 2026.9.x rule: the assembled estimate (`promptAuthority: "assembled"`); skipped entirely with ownsCompaction. */
export function precheck96(input: PrecheckInput & { ownsCompaction: boolean }): PrecheckVerdict | "skipped" {
  if (input.ownsCompaction) return "skipped";
  return verdict(sum(input.assembled), input);
}
