import { LRUCache } from "lru-cache";
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import { countTextWithTable } from "./count-text.js";
import { DEFAULT_ENCODING, loadBpeTable, type EncodingName } from "./encoder.js";
import { IMAGE_TOKENS, REPLY_PRIMING_TOKENS, projectMessage, type ProjectionRules } from "./count-projection.js";

/** Options of {@link createTokenCounter}. */
export interface TokenCounterOptions {
  /** BPE encoding to count with. @default "o200k_base" */
  encoding?: EncodingName;
  /** Tokens per image or other binary block. @default 1600 */
  imageTokens?: number;
  /**
   * Messages remembered by content hash (LRU). Sized above the longest session
   * benchmarked (50,000 messages) so recounting a whole transcript stays a hit.
   * @default 100000
   */
  cacheEntries?: number;
}

/** Cache and fallback counters of a {@link TokenCounter}. */
export interface TokenCounterStats {
  /** Messages answered from the identity cache (same object, same content reference). */
  identityHits: number;
  /** Messages answered from the content-hash cache. */
  hashHits: number;
  /** Messages counted by encoding their texts. */
  misses: number;
  /** Messages counted by the UTF-8 byte upper bound because the tokenizer failed. */
  fallbacks: number;
  /** Entries in the content-hash cache now. */
  cachedMessages: number;
}

/** Exact token counts for host messages, cached per message. */
export interface TokenCounter {
  /** The encoding counted with. */
  readonly encoding: EncodingName;
  /** Exact tokens of `text` (no framing). Throws `tokenizer_unavailable` if the encoder cannot load. */
  countText(text: string): number;
  /**
   * Tokens of one message as sent: framing plus exact text counts plus the
   * image rule (see docs/token-counting.md). Never throws.
   */
  countMessage(message: unknown): number;
  /** Sum of `countMessage` plus the reply priming (3 tokens). Never throws. */
  countMessages(messages: readonly unknown[]): number;
  /** Cache statistics. */
  stats(): TokenCounterStats;
}

interface IdentityEntry {
  content: unknown;
  tokens: number;
}

/**
 * A token counter for OpenClaw `AgentMessage`s. Counts are cached first by
 * object identity (valid while the message's `content` reference is the
 * same: the host replaces, it does not edit in place), then by a SHA-1 of
 * exactly the texts and fixed tokens that the count is made of, so a
 * recount of an equal message costs hashing only.
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  const encoding = options.encoding ?? DEFAULT_ENCODING;
  const rules: ProjectionRules = { imageTokens: nonNegative(options.imageTokens, IMAGE_TOKENS) };
  const cacheEntries = nonNegative(options.cacheEntries, 100_000);
  const byIdentity = new WeakMap<object, IdentityEntry>();
  const byHash = cacheEntries > 0 ? new LRUCache<string, number>({ max: cacheEntries }) : undefined;
  const stats = { identityHits: 0, hashHits: 0, misses: 0, fallbacks: 0 };

  const countText = (text: string): number => countTextWithTable(text, loadBpeTable(encoding));

  const countUncached = (message: unknown): number => {
    const projection = projectMessage(message, rules);
    const hash = createHash("sha1");
    hash.update(`${projection.fixed}`);
    for (const text of projection.texts) hash.update(`\u0000${text.length}\u0000`).update(text);
    const key = hash.digest("base64");
    const cached = byHash?.get(key);
    if (cached !== undefined) {
      stats.hashHits++;
      return cached;
    }
    let tokens = projection.fixed;
    try {
      for (const text of projection.texts) tokens += countText(text);
      stats.misses++;
    } catch {
      // Every token is at least one byte: the byte length is a safe upper bound.
      tokens = projection.fixed;
      for (const text of projection.texts) tokens += Buffer.byteLength(text, "utf8");
      stats.fallbacks++;
      return tokens;
    }
    byHash?.set(key, tokens);
    return tokens;
  };

  const countMessage = (message: unknown): number => {
    const isObject = message !== null && typeof message === "object";
    let content: unknown;
    if (isObject) {
      try {
        content = (message as { content?: unknown }).content;
        const hit = byIdentity.get(message);
        if (hit && hit.content === content) {
          stats.identityHits++;
          return hit.tokens;
        }
      } catch {
        // A getter on the host's object threw: count what can be read, uncached.
        return countUncached(message);
      }
    }
    const tokens = countUncached(message);
    if (isObject) byIdentity.set(message, { content, tokens });
    return tokens;
  };

  return {
    encoding,
    countText,
    countMessage,
    countMessages(messages) {
      let total = REPLY_PRIMING_TOKENS;
      if (!Array.isArray(messages)) return total;
      for (const message of messages) total += countMessage(message);
      return total;
    },
    stats: () => ({ ...stats, cachedMessages: byHash?.size ?? 0 }),
  };
}

function nonNegative(value: number | undefined, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}
