import { handleForBytes, isHandle } from "../artifacts/handle.js";

/** Default keys treated as schema material (any depth; keys ending in `schema` match too). */
export const DEFAULT_SCHEMA_KEYS: readonly string[] = ["schema", "$schema", "definitions", "$defs", "properties", "required"];
/** Default size above which any field moves into the store. */
export const DEFAULT_MAX_FIELD_BYTES = 10_240;
/** Schema material smaller than this stays inline: a pointer would not be smaller. */
export const MIN_SCHEMA_BYTES = 160;
/** JSON texts larger than this are left to the offload rule (stripping costs O(size x depth)). */
export const MAX_STRIP_INPUT_CHARS = 4_000_000;

/** Options of schema stripping. */
export interface StripOptions {
  /** @default DEFAULT_SCHEMA_KEYS */
  schemaKeys?: readonly string[];
  /** @default 10240 */
  maxFieldBytes?: number;
}

/** The pointer left in place of a stripped value. */
export interface LedgerPointer {
  $ledger: string;
  bytes: number;
  /** `text`: the artifact is the string itself; `json`: it is the value's JSON. */
  format: "json" | "text";
}

/** One value moved into the store. */
export interface StrippedPart {
  handle: string;
  content: string;
  bytes: number;
  /** JSONPath-like location, e.g. `$.tools[0].inputSchema`. */
  path: string;
  reason: "schema" | "large-field";
  format: "json" | "text";
}

/** The pure result of {@link planSchemaStrip}. */
export interface StripPlan {
  text: string;
  changed: boolean;
  parts: StrippedPart[];
}

/**
 * Plans stripping of a JSON tool result, purely and synchronously (handles
 * are computed in-process): schema material (keys in `schemaKeys`, or ending
 * in `schema`, holding an object/array of at least {@link MIN_SCHEMA_BYTES})
 * and any value over `maxFieldBytes` become {@link LedgerPointer}s; the caller
 * stashes `parts`. Non-JSON, oversized input, or JSON already containing a
 * `$ledger` key is returned unchanged.
 */
export function planSchemaStrip(text: string, options: StripOptions = {}): StripPlan {
  const unchanged: StripPlan = { text, changed: false, parts: [] };
  const first = text.trimStart()[0];
  if ((first !== "{" && first !== "[") || text.length > MAX_STRIP_INPUT_CHARS || text.includes('"$ledger"')) return unchanged;
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return unchanged;
  }
  const keys = new Set(options.schemaKeys ?? DEFAULT_SCHEMA_KEYS);
  const maxField = options.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
  const parts: StrippedPart[] = [];

  const park = (value: unknown, path: string, reason: StrippedPart["reason"]): LedgerPointer => {
    const format = typeof value === "string" ? "text" : "json";
    const content = typeof value === "string" ? value : (JSON.stringify(value) as string);
    const handle = handleForBytes(content);
    const bytes = Buffer.byteLength(content);
    parts.push({ handle, content, bytes, path, reason, format });
    return { $ledger: handle, bytes, format };
  };

  const visit = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== "object") {
      if (typeof value === "string" && Buffer.byteLength(value) > maxField) return park(value, path, "large-field");
      return value;
    }
    const before = parts.length;
    const out: unknown = Array.isArray(value)
      ? value.map((v, i) => visit(v, `${path}[${i}]`))
      : Object.fromEntries(
          Object.entries(value).map(([k, v]) => {
            const at = /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
            if (isSchemaKey(k, keys) && v !== null && typeof v === "object" && jsonBytes(v) >= MIN_SCHEMA_BYTES) return [k, park(v, at, "schema")];
            return [k, visit(v, at)];
          }),
        );
    if (path !== "$" && jsonBytes(out) > maxField) {
      parts.length = before; // the whole original goes instead of its pieces
      return park(value, path, "large-field");
    }
    return out;
  };

  const result = visit(root, "$");
  if (parts.length === 0) return unchanged;
  const indent = /^[[{]\s*\n/.test(text.trimStart()) ? 2 : undefined;
  return { text: JSON.stringify(result, null, indent), changed: true, parts };
}

/** True for a {@link LedgerPointer}-shaped value. */
export function isLedgerPointer(value: unknown): value is LedgerPointer {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return isHandle(v.$ledger) && typeof v.bytes === "number" && (v.format === "json" || v.format === "text") && Object.keys(v).length === 3;
}

/**
 * Rebuilds the original JSON value from a stripped result and its stashed
 * parts (`fetch` returns an artifact's text). Pointers inside restored parts
 * are restored too.
 */
export async function restoreStripped(result: string | unknown, fetch: (handle: string) => string | Promise<string>): Promise<unknown> {
  const value = typeof result === "string" ? (JSON.parse(result) as unknown) : result;
  const walk = async (v: unknown): Promise<unknown> => {
    if (isLedgerPointer(v)) {
      const content = await fetch(v.$ledger);
      return v.format === "text" ? content : walk(JSON.parse(content) as unknown);
    }
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (v !== null && typeof v === "object") {
      const entries = await Promise.all(Object.entries(v).map(async ([k, x]) => [k, await walk(x)] as const));
      return Object.fromEntries(entries);
    }
    return v;
  };
  return walk(value);
}

function isSchemaKey(key: string, keys: ReadonlySet<string>): boolean {
  return keys.has(key) || (keys.has("schema") && key.length > 6 && key.toLowerCase().endsWith("schema"));
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}
