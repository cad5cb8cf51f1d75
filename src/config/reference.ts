import { configJsonSchema } from "./manifest.js";

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

/** One documented option. */
export interface ConfigOption {
  key: string;
  type: string;
  default: string;
  description: string;
}

/** Every option of the config schema (nested sections flattened to dotted keys). */
export function listConfigOptions(): ConfigOption[] {
  const out: ConfigOption[] = [];
  const walk = (schema: JsonSchema, prefix: string) => {
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const key = prefix ? `${prefix}.${name}` : name;
      if (prop.properties && name !== "agents") {
        walk(prop, key);
        continue;
      }
      out.push({
        key,
        type: typeOf(prop),
        default: prop.default === undefined ? "—" : `\`${JSON.stringify(prop.default)}\``,
        description: prop.description ?? "",
      });
    }
  };
  walk(configJsonSchema() as JsonSchema, "");
  return out;
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((v) => `\`${String(v)}\``).join(" \\| ");
  const t = Array.isArray(schema.type) ? schema.type.join("|") : (schema.type ?? (schema.anyOf ? "union" : "any"));
  const range =
    schema.minimum !== undefined || schema.maximum !== undefined
      ? ` ${schema.minimum ?? "…"}–${schema.maximum ?? "…"}`
      : "";
  return `${t === "array" && schema.items ? `${typeOf(schema.items)}[]` : t}${range}`;
}

/** The config reference as a Markdown table (README and operator guide embed it; a test checks drift). */
export function renderConfigReference(): string {
  const rows = listConfigOptions().map(
    (o) => `| \`${o.key}\` | ${o.type} | ${o.default} | ${o.description.replace(/\|/g, "\\|")} |`,
  );
  return ["| option | type | default | meaning |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
