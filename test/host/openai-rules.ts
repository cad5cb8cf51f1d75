/**
 * What a strict OpenAI chat-completions endpoint checks in a request, for the mock model:
 * tool messages answer the tool calls of the assistant message before them (and every call
 * is answered), the prompt plus the requested completion fits the window (else
 * `context_length_exceeded`, OpenAI's 400), prompt tokens counted with a real BPE (o200k)
 * over tool schemas and messages, and automatic prefix caching: a prefix shared with an
 * earlier request is cached from 1,024 tokens on, in 128-token steps. The prefix is compared
 * message by message (a request sharing part of a message caches less here than at OpenAI,
 * never more).
 */
import { createAutoPrefixCache } from "./prefix-cache.js";
import { messageText, MESSAGE_FRAMING_TOKENS, type TokenCounter } from "./token-count.js";

/** OpenAI's error body. */
export interface OpenAIError {
  message: string;
  type: "invalid_request_error";
  param: string | null;
  code: string | null;
}

/** What the endpoint makes of one request. */
export type WireVerdict =
  | { ok: true; promptTokens: number; cachedTokens: number; violation?: OpenAIError }
  | { ok: false; promptTokens: number; error: OpenAIError };

/** Options of {@link createOpenAIRules}. */
export interface OpenAIRulesOptions {
  contextWindow: number;
  counter: TokenCounter;
  /** Shortest cacheable prefix. @default 1024 */
  minCachedTokens?: number;
  /** Cache granularity. @default 128 */
  cacheStep?: number;
  /**
   * Refuse a request that breaks a rule. When false the endpoint answers it anyway, counted and cached like any
   * other, and names the rule it broke (`violation`): a control engine's costs with its flow left as it is.
   * @default true
   */
  enforce?: boolean;
}

const invalid = (message: string, param: string | null, code: string | null): OpenAIError => ({
  message,
  type: "invalid_request_error",
  param,
  code,
});

/** Tool-call pairing as OpenAI checks it; the first violation, or undefined. */
export function pairingError(messages: readonly unknown[]): OpenAIError | undefined {
  let pending: string[] = [];
  const unanswered = () =>
    invalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
      "messages",
      null,
    );
  for (const raw of messages) {
    const m = (raw ?? {}) as { role?: unknown; tool_call_id?: unknown; tool_calls?: unknown };
    if (m.role === "tool") {
      const at = pending.indexOf(String(m.tool_call_id));
      if (at < 0)
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          "messages.[].role",
          null,
        );
      pending.splice(at, 1);
      continue;
    }
    if (pending.length > 0) return unanswered();
    if (m.role === "assistant" && Array.isArray(m.tool_calls))
      pending = m.tool_calls.map((c) => String((c as { id?: unknown }).id));
  }
  return pending.length > 0 ? unanswered() : undefined;
}

/**
 * One endpoint's rules with its cache: {@link OpenAIRules.check} judges a request and
 * remembers its prefixes for the requests after it.
 */
export function createOpenAIRules(options: OpenAIRulesOptions) {
  const cache = createAutoPrefixCache(options);
  const ruleError = (messages: readonly unknown[], promptTokens: number, completion: number) => {
    const pairing = pairingError(messages);
    if (pairing || promptTokens + completion <= options.contextWindow) return pairing;
    return invalid(
      `This model's maximum context length is ${options.contextWindow} tokens. However, you requested ${promptTokens + completion} tokens (${promptTokens} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`,
      "messages",
      "context_length_exceeded",
    );
  };
  return {
    check(body: Record<string, unknown>): WireVerdict {
      const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
      const units = [
        { text: JSON.stringify(body.tools ?? []), tokens: options.counter(JSON.stringify(body.tools ?? [])) },
        ...messages.map((m) => ({
          text: JSON.stringify(m),
          tokens: options.counter(messageText(m)) + MESSAGE_FRAMING_TOKENS,
        })),
      ];
      const promptTokens = units.reduce((s, u) => s + u.tokens, 0);
      const error = ruleError(messages, promptTokens, Number(body.max_completion_tokens ?? body.max_tokens ?? 0));
      if (error && options.enforce !== false) return { ok: false, promptTokens, error };
      const cachedTokens = cache.read(units);
      return { ok: true, promptTokens, cachedTokens, ...(error ? { violation: error } : {}) };
    },
  };
}

/** The rules of one endpoint. */
export type OpenAIRules = ReturnType<typeof createOpenAIRules>;

/**
 * Input prices the figures bill at (USD per million tokens; GPT-5's list price, 2026): uncached, and cached prefix
 * reads. Chat completions bill no cache writes.
 */
export const OPENAI_INPUT_PRICE = { uncachedPerM: 1.25, cachedPerM: 0.125 } as const;

/** Input cost in USD of `promptTokens` of which `cachedTokens` were read from the prefix cache. */
export function inputCost(promptTokens: number, cachedTokens: number): number {
  const { uncachedPerM, cachedPerM } = OPENAI_INPUT_PRICE;
  return ((promptTokens - cachedTokens) * uncachedPerM + cachedTokens * cachedPerM) / 1_000_000;
}
