import { TOOL_POLICIES } from "../config/schema.js";
import { isToolGlob, toolGlobMatcher } from "../config/tool-glob.js";

/** What happens to one tool's results: kept, schema-stripped, offloaded, or ephemeral. */
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

const POLICIES: ReadonlySet<string> = new Set(TOOL_POLICIES);

/** Policy used when no entry matches. */
export const DEFAULT_TOOL_POLICY: ToolPolicy = "offload";

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
