/**
 * An Anthropic Messages request as the cache and the window see it: its blocks in prefix order
 * (tools, then system, then each message's content blocks), each with its tokens and its
 * `cache_control`.
 *
 * Claude's tokenizer is not public, so the tokens are a proxy: o200k_base counts (the exact BPE
 * the other wires use) times {@link ANTHROPIC_TOKEN_PROXY}'s factor, rounded up per block. Its
 * margin is stated there; it is the one place the Anthropic wire's token counts come from.
 */
import type { TokenCounter } from "./token-count.js";

/**
 * The proxy for Claude's token count: o200k_base × `factor`. Claude's tokenizers produce more tokens than o200k on the
 * same English text and code (Anthropic states its newer tokenizer uses 1.0-1.35× the tokens of its previous one);
 * 1.2 sits in that band. `margin`: the real count may differ from the proxy by about this share either way
 * (not measured here: counting needs Anthropic's `count_tokens` endpoint, and these runs are offline).
 */
export const ANTHROPIC_TOKEN_PROXY = { encoding: "o200k_base", factor: 1.2, margin: 0.15 } as const;

/** Tokens per message for role and framing, as on the OpenAI wires. */
export const ANTHROPIC_MESSAGE_FRAMING_TOKENS = 4;

/** A `cache_control` marker: `ttl` "5m" (the default) or "1h". */
export interface CacheControl {
  ttl: "5m" | "1h";
}

/** One block of the prompt in prefix order. */
export interface AnthropicUnit {
  /** Serialized block (without its `cache_control`): the cache key. */
  text: string;
  tokens: number;
  cacheControl?: CacheControl;
}

interface RawBlock {
  type?: unknown;
  text?: unknown;
  name?: unknown;
  input?: unknown;
  content?: unknown;
  thinking?: unknown;
  cache_control?: { ttl?: unknown };
}

/** The text a block is counted by. */
export function anthropicBlockText(block: unknown): string {
  const b = (block ?? {}) as RawBlock;
  if (b.type === "text") return String(b.text ?? "");
  if (b.type === "tool_use") return `${String(b.name ?? "")}${JSON.stringify(b.input ?? {})}`;
  if (b.type === "thinking") return String(b.thinking ?? "");
  if (b.type === "tool_result") {
    if (typeof b.content === "string") return b.content;
    return Array.isArray(b.content) ? b.content.map(anthropicBlockText).join("") : "";
  }
  return JSON.stringify(b);
}

function unitOf(block: unknown, tokens: number): AnthropicUnit {
  const { cache_control: marker, ...rest } = (block ?? {}) as RawBlock;
  return {
    text: JSON.stringify(rest),
    tokens: Math.ceil(tokens * ANTHROPIC_TOKEN_PROXY.factor),
    ...(marker ? { cacheControl: { ttl: marker.ttl === "1h" ? "1h" : "5m" } } : {}),
  };
}

/** The request's blocks in prefix order, with proxy tokens ({@link ANTHROPIC_TOKEN_PROXY}). */
export function anthropicUnits(body: Record<string, unknown>, counter: TokenCounter): AnthropicUnit[] {
  const units: AnthropicUnit[] = [];
  for (const tool of Array.isArray(body.tools) ? (body.tools as RawBlock[]) : []) {
    const { cache_control: _marker, ...schema } = tool;
    units.push(unitOf(tool, counter(JSON.stringify(schema))));
  }
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : body.system;
  for (const block of Array.isArray(system) ? (system as RawBlock[]) : [])
    units.push(unitOf(block, counter(anthropicBlockText(block))));
  for (const raw of Array.isArray(body.messages) ? (body.messages as unknown[]) : []) {
    const m = (raw ?? {}) as { role?: unknown; content?: unknown };
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    (Array.isArray(blocks) ? (blocks as unknown[]) : []).forEach((block, i) => {
      const framing = i === 0 ? ANTHROPIC_MESSAGE_FRAMING_TOKENS : 0;
      const unit = unitOf(block, counter(anthropicBlockText(block)) + framing);
      // The role is part of the prefix: the same text as a user and as an assistant block are different prefixes.
      units.push(i === 0 ? { ...unit, text: `${String(m.role)}:${unit.text}` } : unit);
    });
  }
  return units;
}
