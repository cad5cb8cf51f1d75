/**
 * Tool names in config (`offload.tools`, `clearing.excludeTools`) and the policy they select: names and
 * globs where `*` is any run of characters and `?` one character, nothing else special.
 * Matched by the classic two-pointer wildcard walk, at most (name length × pattern
 * length) steps: no regex, so a hostile pattern or tool name cannot make a match
 * backtrack. (A regex-compiling glob library does not give that: picomatch's regex for
 * `*a*a*a*a*a*a*b` took 179 s against a 100-char name here.)
 */

/** True when `pattern` is a glob (has `*` or `?`), not a plain tool name. */
function isToolGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/** True when `name` matches the glob `pattern` (`*` any run, `?` one character). */
export function matchToolGlob(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  // Where the last `*` was, and how much of the name it has taken so far.
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    const c = pattern[p];
    if (c === "*") {
      star = p++;
      mark = n;
    } else if (c !== undefined && (c === "?" || c === name[n])) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

/** A matcher for one tool-name glob (a plain name matches itself only). */
function toolGlobMatcher(pattern: string): (toolName: string) => boolean {
  if (!isToolGlob(pattern)) return (name) => name === pattern;
  return (name) => matchToolGlob(pattern, name);
}

/** A matcher for any of `patterns` (names or globs); none matches nothing. */
export function toolNamesMatcher(patterns: readonly string[]): (toolName: string) => boolean {
  if (patterns.length === 0) return () => false;
  const matchers = patterns.map(toolGlobMatcher);
  return (name) => matchers.some((m) => m(name));
}

/** Policies a tool's results can get, chosen by tool name or glob. */
export const TOOL_POLICIES = ["full", "strip", "offload", "ephemeral"] as const;

/** What happens to one tool's results: kept, schema-stripped, offloaded, or ephemeral. */
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

const POLICIES: ReadonlySet<string> = new Set(TOOL_POLICIES);

/** Policy used when no entry matches. */
const DEFAULT_TOOL_POLICY: ToolPolicy = "offload";

/**
 * The policy of `toolName` from a map of names and globs (`*` any run of
 * characters, `?` one character). An exact name wins over globs; among globs
 * the longest pattern (most specific) wins, ties broken alphabetically. Our
 * own retrieval tools default to `full` so a fetched slice is not re-offloaded.
 * @default "offload"
 */
export function resolveToolPolicy(toolName: string, policies: Readonly<Record<string, string>> = {}): ToolPolicy {
  const exact = policies[toolName];
  if (exact !== undefined && POLICIES.has(exact) && !isToolGlob(toolName)) return exact as ToolPolicy;
  let best: { pattern: string; policy: ToolPolicy } | undefined;
  for (const [pattern, policy] of Object.entries(policies)) {
    if (!isToolGlob(pattern) || !POLICIES.has(policy) || !toolGlobMatcher(pattern)(toolName)) continue;
    if (
      !best ||
      pattern.length > best.pattern.length ||
      (pattern.length === best.pattern.length && pattern < best.pattern)
    ) {
      best = { pattern, policy: policy as ToolPolicy };
    }
  }
  if (best) return best.policy;
  if (toolName === "ledger_fetch" || toolName === "ledger_peek" || toolName === "ledger_search") return "full";
  return DEFAULT_TOOL_POLICY;
}
