/**
 * Optional model-written refinement of the deterministic summary, through the
 * host's `llm.complete`. The deterministic text is the floor: any timeout,
 * error, over-long answer, or answer that dropped a handle, error code or
 * path falls back to it. Never throws.
 */
import { codesIn, handlesIn, pathsIn } from "./extract-facts.js";
import { MIN_SUMMARY_CHARS, SUMMARY_CLOSE, SUMMARY_OPEN } from "./render-summary.js";

/** The slice of the host's `runtime.llm` this module uses (structural, so no runtime import of openclaw). */
export interface SummaryLlm {
  complete(params: {
    messages: { role: "user"; content: string }[];
    systemPrompt?: string;
    maxTokens?: number;
    temperature?: number;
    signal?: AbortSignal;
    purpose?: string;
  }): Promise<{ text?: unknown }>;
}

/** Options for {@link refineSummary}. */
export interface RefineSummaryOptions {
  /** Give up after this long. @default 8000 */
  timeoutMs?: number;
  /** Refuse to spend on inputs longer than this (chars sent to the model). @default 16000 */
  maxSpendChars?: number;
  /** Bound of the refined text, markers included. @default 4000 */
  maxChars?: number;
}

/** Why {@link refineSummary} answered as it did. */
export type RefineOutcome = "refined" | "over_spend" | "timeout" | "error" | "empty" | "too_long" | "lost_facts";

/** Result of {@link refineSummary}. */
export interface RefinedSummary {
  text: string;
  refined: boolean;
  outcome: RefineOutcome;
}

const SYSTEM =
  "You compress a coding agent's session summary. Keep every file path, error code, number, decision and " +
  "ledger:v1:sha256 handle exactly as written. Drop repetition. Answer with the summary only.";

/** Asks the model for a tighter summary; returns the deterministic `text` unless the answer is better and safe. */
export async function refineSummary(text: string, llm: SummaryLlm, options: RefineSummaryOptions = {}): Promise<RefinedSummary> {
  const maxChars = Math.max(MIN_SUMMARY_CHARS, options.maxChars ?? 4000);
  const fallback = (outcome: RefineOutcome): RefinedSummary => ({ text, refined: false, outcome });
  if (text.length > (options.maxSpendChars ?? 16_000)) return fallback("over_spend");
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      // Settle first: an aborted call may still resolve in the same tick.
      resolve("timeout");
      controller.abort();
    }, options.timeoutMs ?? 8000);
  });
  let answer: unknown;
  try {
    const call = llm.complete({
      messages: [{ role: "user", content: `Rewrite this summary in at most ${maxChars - 60} characters:\n\n${text}` }],
      systemPrompt: SYSTEM,
      maxTokens: Math.ceil(maxChars / 3),
      temperature: 0,
      signal: controller.signal,
      purpose: "context-ledger summary refinement",
    });
    call.catch(() => undefined);
    const result = await Promise.race([call, timeout]);
    if (result === "timeout") return fallback("timeout");
    answer = result?.text;
  } catch {
    return fallback("error");
  } finally {
    clearTimeout(timer);
  }
  if (typeof answer !== "string" || !answer.trim()) return fallback("empty");
  let body = answer.trim();
  if (body.startsWith(SUMMARY_OPEN)) body = body.slice(SUMMARY_OPEN.length);
  if (body.endsWith(SUMMARY_CLOSE)) body = body.slice(0, -SUMMARY_CLOSE.length);
  const refined = `${SUMMARY_OPEN}\n${body.trim()}\n${SUMMARY_CLOSE}`;
  if (refined.length > maxChars) return fallback("too_long");
  const kept = [...handlesIn(text), ...codesIn(text), ...pathsIn(text)];
  if (kept.some((fact) => !refined.includes(fact))) return fallback("lost_facts");
  return { text: refined, refined: true, outcome: "refined" };
}
