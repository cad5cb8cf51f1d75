/**
 * OpenAI's automatic prompt caching, for the mock's strict wires: a request whose prefix an
 * earlier request already sent reads that prefix from the cache, from 1,024 tokens on, in
 * 128-token steps. The prefix is compared unit by unit (a message, a tool list), so a request
 * that shares part of a unit caches less here than at OpenAI, never more.
 */
import { createHash } from "node:crypto";

/** One piece of a prompt in wire order: its serialized form (the cache key) and its tokens. */
export interface PromptUnit {
  text: string;
  tokens: number;
}

/** Options of {@link createAutoPrefixCache}. */
export interface AutoPrefixCacheOptions {
  /** Shortest cacheable prefix. @default 1024 */
  minCachedTokens?: number;
  /** Cache granularity. @default 128 */
  cacheStep?: number;
}

/** Digest of each prefix of `units`, cumulative: entry i covers units 0..i. */
export function prefixDigests(units: readonly PromptUnit[]): string[] {
  let digest = "";
  return units.map((unit) => (digest = createHash("sha256").update(digest).update(unit.text).digest("hex")));
}

/**
 * One endpoint's automatic prefix cache: {@link AutoPrefixCache.read} returns the cached
 * tokens of a request and remembers its prefixes for the requests after it.
 */
export function createAutoPrefixCache(options: AutoPrefixCacheOptions = {}) {
  const minCached = options.minCachedTokens ?? 1_024;
  const step = options.cacheStep ?? 128;
  const seen = new Set<string>();
  return {
    read(units: readonly PromptUnit[]): number {
      let tokens = 0;
      let shared = 0;
      let matching = true;
      prefixDigests(units).forEach((digest, i) => {
        tokens += units[i]?.tokens ?? 0;
        if (matching && seen.has(digest)) shared = tokens;
        else matching = false;
        seen.add(digest);
      });
      return shared >= minCached ? Math.floor(shared / step) * step : 0;
    },
  };
}

/** An endpoint's automatic prefix cache. */
export type AutoPrefixCache = ReturnType<typeof createAutoPrefixCache>;
