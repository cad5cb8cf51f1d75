/**
 * What a strict OpenAI Responses endpoint checks in a stateless request (`input` items, no
 * `previous_response_id`), for the mock model: every `function_call_output` answers a
 * `function_call` with its `call_id` earlier in the input, and every `function_call` is
 * answered; the input plus `max_output_tokens` fits the window (else `context_length_exceeded`,
 * the check the chat wire makes, applied the same way here); input tokens counted with o200k
 * over instructions, tool schemas and items; automatic prefix caching as on the chat wire
 * ({@link createAutoPrefixCache}), reported as `usage.input_tokens_details.cached_tokens`.
 */
import type { OpenAIError } from "./openai-rules.js";
import { createAutoPrefixCache, type PromptUnit } from "./prefix-cache.js";
import { MESSAGE_FRAMING_TOKENS, type TokenCounter } from "./token-count.js";

/** What the endpoint makes of one request. */
export type ResponsesVerdict =
  | { ok: true; promptTokens: number; cachedTokens: number; violation?: OpenAIError }
  | { ok: false; promptTokens: number; error: OpenAIError };

/** Options of {@link createResponsesRules}. */
export interface ResponsesRulesOptions {
  contextWindow: number;
  counter: TokenCounter;
  /** Refuse a request that breaks a rule; when false, answer it and name the rule (`violation`). @default true */
  enforce?: boolean;
}

interface Item {
  type?: unknown;
  role?: unknown;
  content?: unknown;
  call_id?: unknown;
  name?: unknown;
  arguments?: unknown;
  output?: unknown;
}

const invalid = (message: string, code: string | null): OpenAIError => ({
  message,
  type: "invalid_request_error",
  param: "input",
  code,
});

/** The request's input items (a string input is one user message). */
export function inputItems(body: Record<string, unknown>): Item[] {
  if (typeof body.input === "string") return [{ type: "message", role: "user", content: body.input }];
  return Array.isArray(body.input) ? (body.input as Item[]) : [];
}

/** The text an item is counted by. */
export function itemText(item: unknown): string {
  const i = (item ?? {}) as Item;
  if (i.type === "function_call") return `${String(i.name ?? "")}${String(i.arguments ?? "")}`;
  if (i.type === "function_call_output") return typeof i.output === "string" ? i.output : JSON.stringify(i.output);
  if (typeof i.content === "string") return i.content;
  if (!Array.isArray(i.content)) return "";
  return (i.content as { text?: unknown }[]).map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
}

/** `function_call` / `function_call_output` pairing by `call_id`; the first violation, or undefined. */
export function responsesPairingError(items: readonly unknown[]): OpenAIError | undefined {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const raw of items) {
    const item = (raw ?? {}) as Item;
    const id = String(item.call_id);
    if (item.type === "function_call") calls.add(id);
    if (item.type !== "function_call_output") continue;
    if (!calls.has(id)) return invalid(`No tool call found for function call output with call_id ${id}.`, null);
    answered.add(id);
  }
  const open = [...calls].find((id) => !answered.has(id));
  return open === undefined ? undefined : invalid(`No tool output found for function call ${open}.`, null);
}

/** The request in prefix order: instructions, tool schemas, then each input item. */
export function responsesUnits(body: Record<string, unknown>, counter: TokenCounter): PromptUnit[] {
  const instructions = typeof body.instructions === "string" ? body.instructions : "";
  const tools = JSON.stringify(body.tools ?? []);
  return [
    { text: instructions, tokens: instructions ? counter(instructions) + MESSAGE_FRAMING_TOKENS : 0 },
    { text: tools, tokens: counter(tools) },
    ...inputItems(body).map((item) => ({
      text: JSON.stringify(item),
      tokens: counter(itemText(item)) + MESSAGE_FRAMING_TOKENS,
    })),
  ];
}

/** One endpoint's rules with its cache: {@link ResponsesRules.check} judges a request and bills it. */
export function createResponsesRules(options: ResponsesRulesOptions) {
  const cache = createAutoPrefixCache();
  return {
    check(body: Record<string, unknown>): ResponsesVerdict {
      const units = responsesUnits(body, options.counter);
      const promptTokens = units.reduce((s, u) => s + u.tokens, 0);
      const completion = Number(body.max_output_tokens ?? 0);
      let error = responsesPairingError(inputItems(body));
      if (!error && promptTokens + completion > options.contextWindow)
        error = invalid(
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
          "context_length_exceeded",
        );
      if (error && options.enforce !== false) return { ok: false, promptTokens, error };
      return { ok: true, promptTokens, cachedTokens: cache.read(units), ...(error ? { violation: error } : {}) };
    },
  };
}

/** The rules of one Responses endpoint. */
export type ResponsesRules = ReturnType<typeof createResponsesRules>;
