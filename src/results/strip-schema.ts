import { tryParseJson } from "../json.js";
import { handleForBytes, isHandle } from "../artifacts/index.js";

/** Default keys treated as schema material (any depth; keys ending in `schema` match too). */
export const DEFAULT_SCHEMA_KEYS: readonly string[] = [
  "schema",
  "$schema",
  "definitions",
  "$defs",
  "properties",
  "required",
];
/** Default size above which any field moves into the store. */
const DEFAULT_MAX_FIELD_BYTES = 10_240;
/** Schema material smaller than this stays inline: a pointer would not be smaller. */
const MIN_SCHEMA_BYTES = 160;
/** JSON texts larger than this are left to the offload rule. */
const MAX_STRIP_INPUT_CHARS = 4_000_000;
/**
 * JSON nested deeper than this is left to the offload rule (the walk is iterative; this bounds its stack of frames).
 */
const MAX_STRIP_DEPTH = 256;

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
  if ((first !== "{" && first !== "[") || text.length > MAX_STRIP_INPUT_CHARS || text.includes('"$ledger"'))
    return unchanged;
  const root = tryParseJson(text);
  if (root === undefined) return unchanged;
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
  const walked = walkIteratively(root, keys, maxField, park);
  if (walked === undefined) return unchanged;
  const result = walked;
  // A null-prototype `out` keeps a `__proto__` member an ordinary key.
  if (parts.length === 0) return unchanged;
  const indent = /^[[{]\s*\n/.test(text.trimStart()) ? 2 : undefined;
  return { text: JSON.stringify(result, null, indent), changed: true, parts };
}

/** True for a {@link LedgerPointer}-shaped value. */
export function isLedgerPointer(value: unknown): value is LedgerPointer {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    isHandle(v.$ledger) &&
    typeof v.bytes === "number" &&
    (v.format === "json" || v.format === "text") &&
    Object.keys(v).length === 3
  );
}

/**
 * Rebuilds the original JSON value from a stripped result and its stashed
 * parts (`fetch` returns an artifact's text). Pointers inside restored parts
 * are restored too.
 */
export async function restoreStripped(
  result: string | unknown,
  fetch: (handle: string) => string | Promise<string>,
): Promise<unknown> {
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

interface Frame {
  value: Record<string, unknown> | unknown[];
  path: string;
  entries: Array<[string | number, unknown]>;
  next: number;
  out: Record<string, unknown> | unknown[];
  /** Bytes of `out` as JSON so far (sizes are summed bottom-up, never re-serialised). */
  bytes: number;
  /** Key of this frame in its parent's `out`. */
  slot: string | number;
}

/**
 * Post-order walk with an explicit stack (no recursion: hostile nesting cannot
 * overflow the call stack). A value whose stripped JSON still exceeds
 * `maxField` is parked as its stripped form (pointers inside are restored by
 * {@link restoreStripped}), so every byte is serialised about once. Returns
 * undefined when nesting exceeds {@link MAX_STRIP_DEPTH}.
 */
function walkIteratively(
  root: unknown,
  keys: ReadonlySet<string>,
  maxField: number,
  park: (value: unknown, path: string, reason: StrippedPart["reason"]) => LedgerPointer,
): unknown {
  const leaf = (value: unknown, path: string): { value: unknown; bytes: number } => {
    if (typeof value === "string" && Buffer.byteLength(value) > maxField) {
      const pointer = park(value, path, "large-field");
      return { value: pointer, bytes: jsonBytes(pointer) };
    }
    return { value, bytes: jsonBytes(value) };
  };
  if (root === null || typeof root !== "object") return leaf(root, "$").value;
  const open = (value: Record<string, unknown> | unknown[], path: string, slot: string | number): Frame => {
    const isArray = Array.isArray(value);
    return {
      value,
      path,
      slot,
      entries: isArray ? value.map((v, i) => [i, v]) : Object.entries(value),
      next: 0,
      out: isArray ? [] : (Object.create(null) as Record<string, unknown>),
      bytes: 2,
    };
  };
  const stack: Frame[] = [open(root as Record<string, unknown>, "$", "")];
  const put = (frame: Frame, slot: string | number, value: unknown, bytes: number): void => {
    const sep = frame.next > 1 ? 1 : 0;
    if (Array.isArray(frame.out)) {
      frame.out.push(value);
      frame.bytes += sep + bytes;
    } else {
      frame.out[slot as string] = value;
      frame.bytes += sep + jsonBytes(slot) + 1 + bytes;
    }
  };
  for (;;) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next < frame.entries.length) {
      const [k, v] = frame.entries[frame.next++] as [string | number, unknown];
      const at =
        typeof k === "number"
          ? `${frame.path}[${k}]`
          : /^[A-Za-z_$][\w$]*$/.test(k)
            ? `${frame.path}.${k}`
            : `${frame.path}[${JSON.stringify(k)}]`;
      if (
        typeof k === "string" &&
        isSchemaKey(k, keys) &&
        v !== null &&
        typeof v === "object" &&
        jsonBytes(v) >= MIN_SCHEMA_BYTES
      ) {
        const pointer = park(v, at, "schema");
        put(frame, k, pointer, jsonBytes(pointer));
      } else if (v !== null && typeof v === "object") {
        if (stack.length >= MAX_STRIP_DEPTH) return undefined;
        stack.push(open(v as Record<string, unknown>, at, k));
      } else {
        const l = leaf(v, at);
        put(frame, k, l.value, l.bytes);
      }
      continue;
    }
    stack.pop();
    const parent = stack[stack.length - 1];
    if (!parent) return frame.out;
    if (frame.bytes > maxField) {
      const pointer = park(frame.out, frame.path, "large-field");
      put(parent, frame.slot, pointer, jsonBytes(pointer));
    } else {
      put(parent, frame.slot, frame.out, frame.bytes);
    }
  }
}

function isSchemaKey(key: string, keys: ReadonlySet<string>): boolean {
  return keys.has(key) || (keys.has("schema") && key.length > 6 && key.toLowerCase().endsWith("schema"));
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}
