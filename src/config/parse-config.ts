import { z } from "zod";
import { describeValue, LedgerError } from "../errors.js";
import { editDistance } from "./edit-distance.js";
import { configSchema, type AgentSettings, type LedgerConfig } from "./schema.js";

/**
 * Parses and defaults the plugin config. Throws `config_invalid` with one line
 * per problem, each naming the path, what was expected and what was got.
 */
export function parseConfig(input: unknown): LedgerConfig {
  const result = configSchema.safeParse(input ?? {});
  if (result.success) return keepOnlyGivenOverrides(result.data, input);
  const lines = result.error.issues.map((issue) => `- ${formatIssue(issue, input)}`);
  throw new LedgerError("config_invalid", `Invalid context-ledger config:\n${lines.join("\n")}`, {
    cause: result.error,
  });
}

const SECTIONS = [
  "tokenizer",
  "budget",
  "clearing",
  "offload",
  "schemaStrip",
  "retrieval",
  "summary",
  "maintenance",
  "limits",
  "redaction",
] as const;

// zod fills section defaults even inside a partial override; an agent override
// must carry only the keys the operator wrote, or it would reset global settings.
function keepOnlyGivenOverrides(config: LedgerConfig, input: unknown): LedgerConfig {
  const rawAgents = (input as { agents?: Record<string, Record<string, unknown>> } | undefined)?.agents ?? {};
  for (const [id, override] of Object.entries(config.agents)) {
    for (const key of SECTIONS) {
      const given = rawAgents[id]?.[key];
      const parsed = override[key] as Record<string, unknown> | undefined;
      if (!parsed) continue;
      const keep = given && typeof given === "object" ? Object.keys(given) : [];
      (override as Record<string, unknown>)[key] = Object.fromEntries(
        Object.entries(parsed).filter(([k]) => keep.includes(k)),
      );
    }
  }
  return config;
}

function formatIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
  const got = valueAt(input, issue.path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = knownKeysAt(issue.path);
      const named = issue.keys.map((k) => {
        const c = closest(k, known);
        return `\`${k}\`${c ? ` (did you mean \`${c}\`?)` : ""}`;
      });
      return `${where}: unknown key(s) ${named.join(", ")}; expected ${known.length ? `one of ${known.join(", ")}` : "only the documented keys"}`;
    }
    case "invalid_type":
      return `${where}: expected ${issue.expected}, got ${describeValue(got)}`;
    case "too_small":
    case "too_big": {
      const bound =
        issue.code === "too_small" ? `at least ${String(issue.minimum)}` : `at most ${String(issue.maximum)}`;
      return `${where}: expected ${issue.origin === "string" ? "a string of length" : "a value"} ${bound}, got ${describeValue(got)}`;
    }
    case "invalid_value":
      return `${where}: expected one of ${issue.values.map((v) => `\`${String(v)}\``).join(", ")}, got ${describeValue(got)}`;
    case "custom":
      return `${where}: ${issue.message}`;
    default:
      return `${where}: ${issue.message}, got ${describeValue(got)}`;
  }
}

/** Keys the schema knows at `path` (an agent override mirrors the global sections). */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  const defaults = configSchema.parse({}) as unknown;
  const p = path[0] === "agents" && path.length >= 2 ? path.slice(2) : path;
  const node = valueAt(defaults, p);
  return node && typeof node === "object" && !Array.isArray(node) ? Object.keys(node) : [];
}

/** The known key nearest to `key` (case-insensitive edit distance at most 2, or a prefix), if any. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const a = key.toLowerCase();
    const b = k.toLowerCase();
    const d = a === b ? 0 : b.startsWith(a) || a.startsWith(b) ? 1 : editDistance(a, b);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * The effective settings of one agent: global sections with the agent's
 * partial overrides merged in. `enabled` is false when the plugin or the agent is off.
 */
export function resolveAgentSettings(config: LedgerConfig, agentId: string): AgentSettings {
  const override = config.agents[agentId];
  const { agents: _agents, ...base } = config;
  if (!override) return { ...base, agentId };
  const merged: AgentSettings = { ...base, agentId, enabled: config.enabled && override.enabled !== false };
  for (const key of SECTIONS) {
    const part = override[key];
    if (part) (merged as Record<string, unknown>)[key] = { ...base[key], ...part };
  }
  return merged;
}
