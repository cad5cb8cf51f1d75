/**
 * Anthropic's prompt cache as the Messages API documents it: only explicit `cache_control`
 * breakpoints write the cache (the prefix up to and including the marked block, if it is at
 * least the minimum cacheable length); a request reads the longest live prefix that some
 * earlier request wrote, found at one of its own breakpoints or up to 20 blocks before one; an
 * entry lives 5 minutes (or 1 hour with `ttl: "1h"`) from its last use. Reads are billed as
 * `cache_read_input_tokens`, the tokens between the read and the last cached breakpoint as
 * `cache_creation_input_tokens`, the rest as `input_tokens`.
 */
import { prefixDigests } from "./prefix-cache.js";
import type { AnthropicUnit } from "./anthropic-units.js";

/** A `cache_control` marker at block `index` of the prefix. */
export interface CacheBreakpoint {
  index: number;
  ttl: "5m" | "1h";
}

/** How one request is billed against the cache (tokens). */
export interface AnthropicCacheUsage {
  inputTokens: number;
  cacheReadTokens: number;
  /** Cache writes, both TTLs. */
  cacheWriteTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
}

/** Options of {@link createAnthropicCache}. */
export interface AnthropicCacheOptions {
  /** @default 1024 */
  minCacheableTokens?: number;
  /** @default Date.now */
  now?: () => number;
}

/** How far before a breakpoint the API looks for an earlier cache entry. */
export const CACHE_LOOKBACK_BLOCKS = 20;

/** Life of a cache entry after its last use, per TTL. */
export const CACHE_TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;

/** One endpoint's prompt cache; {@link AnthropicCache.bill} reads and writes it for one request. */
export function createAnthropicCache(options: AnthropicCacheOptions = {}) {
  const minCacheable = options.minCacheableTokens ?? 1_024;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { expiresAt: number; ttlMs: number }>();
  return {
    bill(units: readonly AnthropicUnit[], breakpoints: readonly CacheBreakpoint[]): AnthropicCacheUsage {
      const t = now();
      const digests = prefixDigests(units);
      const upTo: number[] = [];
      units.forEach((u, i) => upTo.push((upTo[i - 1] ?? 0) + u.tokens));
      const total = upTo.at(-1) ?? 0;
      const live = (i: number) => {
        const entry = entries.get(digests[i] ?? "");
        return entry && entry.expiresAt > t ? entry : undefined;
      };
      let hit = -1;
      for (const bp of breakpoints) {
        for (let i = bp.index; i >= Math.max(0, bp.index - CACHE_LOOKBACK_BLOCKS); i--) {
          if (!live(i)) continue;
          hit = Math.max(hit, i);
          break;
        }
      }
      const hitEntry = hit >= 0 ? live(hit) : undefined;
      if (hitEntry) hitEntry.expiresAt = t + hitEntry.ttlMs;
      const read = hit >= 0 ? (upTo[hit] ?? 0) : 0;
      let written = hit;
      const writes = { "5m": 0, "1h": 0 };
      for (const bp of [...breakpoints].sort((a, b) => a.index - b.index)) {
        const tokens = upTo[bp.index] ?? 0;
        if (bp.index <= written || tokens < minCacheable) continue;
        writes[bp.ttl] += tokens - (written >= 0 ? (upTo[written] ?? 0) : 0);
        entries.set(digests[bp.index] ?? "", { expiresAt: t + CACHE_TTL_MS[bp.ttl], ttlMs: CACHE_TTL_MS[bp.ttl] });
        written = bp.index;
      }
      const write = writes["5m"] + writes["1h"];
      return {
        inputTokens: total - read - write,
        cacheReadTokens: read,
        cacheWriteTokens: write,
        cacheWrite5mTokens: writes["5m"],
        cacheWrite1hTokens: writes["1h"],
      };
    },
  };
}

/** An endpoint's prompt cache. */
export type AnthropicCache = ReturnType<typeof createAnthropicCache>;
