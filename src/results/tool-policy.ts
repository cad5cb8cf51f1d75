import { TOOL_POLICIES } from "../config/schema.js";

/** How a tool's results are treated: kept, schema-stripped, offloaded, or ephemeral. */
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

/**
 * The policy for a tool: an exact name wins over globs (`*`, `?`); among
 * globs the longest pattern wins; default `offload`.
 */
export function resolveToolPolicy(toolName: string, policies: Readonly<Record<string, ToolPolicy>>): ToolPolicy {
  const exact = policies[toolName];
  if (exact) return exact;
  let best: { len: number; policy: ToolPolicy } | undefined;
  for (const [pattern, policy] of Object.entries(policies)) {
    if (!/[*?]/.test(pattern)) continue;
    if (globToRegExp(pattern).test(toolName) && (!best || pattern.length > best.len)) best = { len: pattern.length, policy };
  }
  return best?.policy ?? "offload";
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}
