/**
 * What a strict Anthropic Messages endpoint checks in a request, for the mock model: the
 * first message is the user's; consecutive messages of one role are one turn (the API merges
 * them); every `tool_use` is answered by a `tool_result` in the next user turn and every
 * `tool_result` answers a `tool_use` of the turn before; no empty text block; with thinking on,
 * the current turn's thinking blocks are the ones the mock sent, byte for byte; at most 4
 * `cache_control` breakpoints; and the prompt fits the window (`prompt is too long`), the prompt
 * plus `max_tokens` too. Caching follows the breakpoints ({@link createAnthropicCache}).
 */
import { createAnthropicCache, type AnthropicCacheUsage, type CacheBreakpoint } from "./anthropic-cache.js";
import { anthropicUnits, type AnthropicUnit } from "./anthropic-units.js";
import type { TokenCounter } from "./token-count.js";

/** Anthropic's error body. */
export interface AnthropicError {
  type: "error";
  error: { type: "invalid_request_error"; message: string };
}

/** What the endpoint makes of one request (`promptTokens` is input + cache reads + cache writes). */
export type AnthropicVerdict =
  | ({ ok: true; promptTokens: number; violation?: AnthropicError } & AnthropicCacheUsage)
  | { ok: false; promptTokens: number; error: AnthropicError };

/** Options of {@link createAnthropicRules}. */
export interface AnthropicRulesOptions {
  contextWindow: number;
  counter: TokenCounter;
  /** Shortest prefix a breakpoint caches (Claude Sonnet / Opus 4: 1,024; Haiku: 2,048). @default 1024 */
  minCacheableTokens?: number;
  /** Clock of the cache's TTLs (tests move it). @default Date.now */
  now?: () => number;
  /** Refuse a request that breaks a rule; when false, answer it and name the rule (`violation`). @default true */
  enforce?: boolean;
}

/** Most `cache_control` breakpoints a request may carry. */
export const MAX_CACHE_BREAKPOINTS = 4;

const invalid = (message: string): AnthropicError => ({
  type: "error",
  error: { type: "invalid_request_error", message },
});

interface Block {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  tool_use_id?: unknown;
  thinking?: unknown;
  signature?: unknown;
}

interface Turn {
  role: string;
  /** Index of the turn's first message in `messages`. */
  at: number;
  blocks: { block: Block; message: number; index: number }[];
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

/** Consecutive messages of one role, merged as the API merges them. */
function turnsOf(messages: readonly unknown[]): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((raw, message) => {
    const m = (raw ?? {}) as { role?: unknown; content?: unknown };
    const role = String(m.role);
    const last = turns.at(-1);
    const turn = last?.role === role ? last : { role, at: message, blocks: [] };
    if (turn !== last) turns.push(turn);
    blocksOf(m.content).forEach((block, index) => turn.blocks.push({ block, message, index }));
  });
  return turns;
}

function firstMessageError(messages: readonly unknown[]): AnthropicError | undefined {
  if (messages.length === 0) return invalid("messages: at least one message is required");
  const first = (messages[0] ?? {}) as { role?: unknown };
  return first.role === "user" ? undefined : invalid('messages: first message must use the "user" role');
}

function emptyTextError(body: Record<string, unknown>): AnthropicError | undefined {
  const system = Array.isArray(body.system) ? (body.system as Block[]) : [];
  const emptySystem = system.findIndex((b) => b.type === "text" && String(b.text ?? "").trim() === "");
  if (emptySystem >= 0) return invalid(`system.${emptySystem}.text: text content blocks must be non-empty`);
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  for (const [i, raw] of messages.entries()) {
    const content = (raw as { content?: unknown } | undefined)?.content;
    if (typeof content === "string" && content.trim() === "")
      return invalid(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    const at = blocksOf(content).findIndex((b) => b.type === "text" && String(b.text ?? "").trim() === "");
    if (Array.isArray(content) && at >= 0)
      return invalid(`messages.${i}.content.${at}.text: text content blocks must be non-empty`);
  }
  return undefined;
}

/** Tool pairing as the Messages API checks it, over merged turns; the first violation, or undefined. */
export function anthropicPairingError(messages: readonly unknown[]): AnthropicError | undefined {
  const turns = turnsOf(messages);
  for (const [t, turn] of turns.entries()) {
    const previous = turns[t - 1];
    const offered = new Set(
      turn.role === "user" && previous?.role === "assistant"
        ? previous.blocks.filter((b) => b.block.type === "tool_use").map((b) => String(b.block.id))
        : [],
    );
    for (const { block, message, index } of turn.blocks) {
      if (block.type !== "tool_result" || offered.has(String(block.tool_use_id))) continue;
      return invalid(
        `messages.${message}.content.${index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
    if (turn.role !== "assistant") continue;
    const answered = new Set(
      (turns[t + 1]?.blocks ?? [])
        .filter((b) => b.block.type === "tool_result")
        .map((b) => String(b.block.tool_use_id)),
    );
    const open = turn.blocks.filter((b) => b.block.type === "tool_use" && !answered.has(String(b.block.id)));
    if (open.length > 0)
      return invalid(
        `messages.${turn.at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${open.map((b) => String(b.block.id)).join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
  }
  return undefined;
}

/** True when the request turns extended thinking on. */
export function thinkingEnabled(body: Record<string, unknown>): boolean {
  const type = (body.thinking as { type?: unknown } | undefined)?.type;
  return type === "enabled" || type === "adaptive";
}

/**
 * With thinking on: in the current turn (the assistant messages after the last user turn that carries no tool
 * result; consecutive user messages are one turn), each thinking block must be one the mock sent (`issued`:
 * signature → thinking text), unchanged, and an assistant message that calls a tool must start with its thinking
 * block.
 */
export function thinkingError(
  body: Record<string, unknown>,
  issued: ReadonlyMap<string, string>,
): AnthropicError | undefined {
  if (!thinkingEnabled(body)) return undefined;
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  // A user turn (merged, as the API merges) that carries tool results continues the assistant's turn.
  let start = 0;
  for (const turn of turnsOf(messages)) {
    if (turn.role === "user" && !turn.blocks.some((b) => b.block.type === "tool_result"))
      start = (turn.blocks.at(-1)?.message ?? turn.at) + 1;
  }
  for (let i = start; i < messages.length; i++) {
    const m = (messages[i] ?? {}) as { role?: unknown; content?: unknown };
    if (m.role !== "assistant") continue;
    const blocks = blocksOf(m.content);
    for (const [j, b] of blocks.entries()) {
      if (b.type !== "thinking") continue;
      if (issued.get(String(b.signature)) !== b.thinking)
        return invalid(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
    }
    const firstType = String(blocks[0]?.type);
    if (blocks.some((b) => b.type === "tool_use") && firstType !== "thinking" && firstType !== "redacted_thinking")
      return invalid(
        `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${firstType}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`,
      );
  }
  return undefined;
}

function breakpointsOf(units: readonly AnthropicUnit[]): CacheBreakpoint[] {
  return units.flatMap((u, index) => (u.cacheControl ? [{ index, ttl: u.cacheControl.ttl }] : []));
}

/**
 * One endpoint's rules with its cache: {@link AnthropicRules.check} judges a request, bills it
 * against the cache, and records the mock's own thinking blocks ({@link AnthropicRules.issueThinking})
 * so that a later request must send them back unchanged.
 */
export function createAnthropicRules(options: AnthropicRulesOptions) {
  const cache = createAnthropicCache({ minCacheableTokens: options.minCacheableTokens, now: options.now });
  const issued = new Map<string, string>();
  const ruleError = (body: Record<string, unknown>, units: readonly AnthropicUnit[], input: number) => {
    const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
    const structural =
      firstMessageError(messages) ??
      emptyTextError(body) ??
      anthropicPairingError(messages) ??
      thinkingError(body, issued);
    if (structural) return structural;
    const breakpoints = units.filter((u) => u.cacheControl).length;
    if (breakpoints > MAX_CACHE_BREAKPOINTS)
      return invalid(
        `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`,
      );
    if (input > options.contextWindow)
      return invalid(`prompt is too long: ${input} tokens > ${options.contextWindow} maximum`);
    const maxTokens = Number(body.max_tokens ?? 0);
    if (input + maxTokens > options.contextWindow)
      return invalid(
        `input length and \`max_tokens\` exceed context limit: ${input} + ${maxTokens} > ${options.contextWindow}, decrease input length or \`max_tokens\` and try again`,
      );
    return undefined;
  };
  return {
    check(body: Record<string, unknown>): AnthropicVerdict {
      const units = anthropicUnits(body, options.counter);
      const promptTokens = units.reduce((s, u) => s + u.tokens, 0);
      const error = ruleError(body, units, promptTokens);
      if (error && options.enforce !== false) return { ok: false, promptTokens, error };
      const usage = cache.bill(units, breakpointsOf(units));
      return { ok: true, promptTokens, ...usage, ...(error ? { violation: error } : {}) };
    },
    /** Records a thinking block the mock sends; returns its signature. */
    issueThinking(thinking: string): string {
      const signature = `mock-sig-${issued.size + 1}-${thinking.length}`;
      issued.set(signature, thinking);
      return signature;
    },
  };
}

/** The rules of one Anthropic endpoint. */
export type AnthropicRules = ReturnType<typeof createAnthropicRules>;
