import { z } from "zod";
import { configSchema } from "../../src/config/schema.js";

/** One documented config key. */
export interface ConfigKeyDoc {
  /** Dotted path, `agents.<id>` for the per-agent map. */
  key: string;
  type: string;
  /** The default as it is written in the guide (inline code), or `-` when none. */
  defaultText: string;
  description: string;
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
}

/** Every leaf key of the plugin config with type, default and description, from `z.toJSONSchema`. */
export function configKeyDocs(): ConfigKeyDoc[] {
  const root = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const out: ConfigKeyDoc[] = [];
  const walk = (schema: JsonSchema, prefix: string) => {
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      const key = prefix ? `${prefix}.${name}` : name;
      if (child.type === "object" && child.properties && key !== "agents") {
        walk(child, key);
        continue;
      }
      out.push({ key, type: typeOf(child), defaultText: child.default === undefined ? "-" : `\`${JSON.stringify(child.default)}\``, description: child.description ?? "" });
    }
  };
  walk(root, "");
  return out;
}

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  const t = Array.isArray(s.type) ? s.type.join(" \\| ") : (s.type ?? "object");
  const max = s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER ? s.maximum : undefined;
  const range = s.minimum !== undefined && max !== undefined ? ` ${s.minimum}–${max}` : s.minimum !== undefined ? ` ≥ ${s.minimum}` : max !== undefined ? ` ≤ ${max}` : "";
  if (t === "array") return `array of ${s.items ? typeOf(s.items) : "any"}`;
  if (t === "object" && s.additionalProperties && typeof s.additionalProperties === "object") return `map of ${typeOf(s.additionalProperties)}`;
  return `${t}${range}`;
}

/** The reference table as it appears in docs/operator-guide.md. */
export function renderConfigTable(): string {
  const rows = configKeyDocs().map((d) => `| \`${d.key}\` | ${d.type} | ${d.defaultText} | ${d.description.replace(/\|/g, "\\|")} |`);
  return ["| Key | Type | Default | Meaning |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
