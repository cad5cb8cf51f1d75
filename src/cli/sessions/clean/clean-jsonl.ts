import { LedgerError } from "../../../errors.js";
import { isLedgerBlock } from "../../../results/stub.js";
import { findJsonValueSpan, type JsonStep } from "./json-span.js";
import { joinByteLines, splitByteLines } from "../../../fs/byte-lines.js";

/** One payload that cleaning moves into the artifact store. */
export interface PayloadPlan {
  entryId: string;
  toolName: string;
  toolCallId?: string;
  /** Where it sat in the entry: `content[0].text`, `content`, `details.aggregated`. */
  field: string;
  chars: number;
  bytes: number;
  handle: string;
}

/** What cleaning does (or would do) to one JSONL session file. */
export interface CleanPlan {
  /** Message entries in the file. */
  entries: number;
  /** Entries whose payloads were replaced. */
  rewrittenEntries: number;
  payloads: PayloadPlan[];
  bytesBefore: number;
  bytesAfter: number;
  bytesFreed: number;
  /** Lines that are not JSON (kept verbatim). */
  invalidLines: number;
  /** The cleaned file content (decoded for display; write {@link CleanPlan.bytes}). */
  text: string;
  /** The cleaned file, byte for byte: only the replaced string values differ from the input. */
  bytes: Buffer;
}

/** What a stubber gets for one payload. */
export interface PayloadInfo {
  entryId: string;
  toolName: string;
  toolCallId?: string;
  sessionId?: string;
  /** `details.exitCode` of the result, when the host recorded one. */
  exitCode?: number;
  field: string;
}

/**
 * Turns a payload into its stub text, returning the handle it points at (stashing it, or only hashing in a dry run).
 */
export type Stubber = (payload: string, info: PayloadInfo) => Promise<{ handle: string; stub: string }>;

/** Options for {@link planClean}. */
export interface PlanCleanOptions {
  /** The newest N message entries stay untouched. @default 0 */
  keepLast?: number;
  /** Only tool results of these tool names. @default every tool */
  tools?: ReadonlySet<string>;
  /** Payloads shorter than this stay. @default 4000 */
  minChars?: number;
  /** Called after each rewritten entry. */
  onEntry?: (done: number, total: number) => void;
}

/** Default of `--min-chars`. */
export const DEFAULT_MIN_CHARS = 4000;

/**
 * Plans (and, through `stub`, performs) the cleaning of a 2026.4.x JSONL
 * session: tool-result text blocks and `details.aggregated` at or over
 * `minChars` become handle stubs. Only payloads change: every line keeps its
 * type, id, parentId and position, untouched lines stay byte-identical.
 */
export async function planClean(
  input: string | Buffer,
  stub: Stubber,
  options: PlanCleanOptions = {},
): Promise<CleanPlan> {
  const minChars = options.minChars ?? DEFAULT_MIN_CHARS;
  const raw = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  const text = raw.toString("utf8");
  const rawLines = splitByteLines(raw);
  const lines = rawLines.map((l) => l.toString("utf8"));
  const parsed: (Record<string, unknown> | undefined)[] = lines.map((line) => {
    if (!line.trim()) return undefined;
    try {
      const v = JSON.parse(line) as unknown;
      return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      // A line that is not JSON is kept as it is and never rewritten.
      return undefined;
    }
  });
  const invalidLines = lines.filter((l, i) => l.trim() && !parsed[i]).length;
  const messageLines = parsed.flatMap((e, i) => (e?.type === "message" ? [i] : []));
  const header = parsed.find((e) => e?.type === "session");
  const sessionId = typeof header?.id === "string" ? header.id : undefined;
  const editable = messageLines.slice(0, Math.max(0, messageLines.length - (options.keepLast ?? 0)));
  const payloads: PayloadPlan[] = [];
  let rewrittenEntries = 0;
  let done = 0;
  for (const i of editable) {
    const entry = parsed[i] as Record<string, unknown>;
    const message = entry.message as Record<string, unknown> | undefined;
    done++;
    if (!message || message.role !== "toolResult") continue;
    const toolName = typeof message.toolName === "string" ? message.toolName : "unknown";
    if (options.tools && !options.tools.has(toolName)) continue;
    const base: PayloadInfo = {
      entryId: String(entry.id ?? ""),
      toolName,
      ...(typeof message.toolCallId === "string" ? { toolCallId: message.toolCallId } : {}),
      ...(sessionId ? { sessionId } : {}),
      ...(typeof (message.details as { exitCode?: unknown } | undefined)?.exitCode === "number"
        ? { exitCode: (message.details as { exitCode: number }).exitCode }
        : {}),
      field: "",
    };
    const replace = async (value: unknown, field: string): Promise<string | undefined> => {
      if (typeof value !== "string" || value.length < minChars || isLedgerBlock(value)) return undefined;
      const info = { ...base, field };
      const { handle, stub: stubText } = await stub(value, info);
      const { sessionId: _s, exitCode: _e, ...where } = info;
      payloads.push({ ...where, chars: value.length, bytes: Buffer.byteLength(value, "utf8"), handle });
      return stubText;
    };
    // Only the replaced string values change: numbers, escapes, key order and spacing elsewhere stay byte-exact.
    const edits: Array<{ path: JsonStep[]; value: string }> = [];
    if (typeof message.content === "string") {
      const s = await replace(message.content, "content");
      if (s !== undefined) edits.push({ path: ["message", "content"], value: s });
    } else if (Array.isArray(message.content)) {
      for (const [b, block] of message.content.entries()) {
        const s =
          block && typeof block === "object"
            ? await replace((block as Record<string, unknown>).text, `content[${b}].text`)
            : undefined;
        if (s !== undefined) edits.push({ path: ["message", "content", b, "text"], value: s });
      }
    }
    const details = message.details;
    if (details && typeof details === "object" && !Array.isArray(details)) {
      const s = await replace((details as Record<string, unknown>).aggregated, "details.aggregated");
      if (s !== undefined) edits.push({ path: ["message", "details", "aggregated"], value: s });
    }
    if (edits.length === 0) continue;
    rawLines[i] = spliceValues(rawLines[i] as Buffer, edits);
    lines[i] = (rawLines[i] as Buffer).toString("utf8");
    rewrittenEntries++;
    options.onEntry?.(done, editable.length);
  }
  const bytes = joinByteLines(rawLines);
  const out = bytes.toString("utf8");
  const bytesBefore = raw.length;
  const bytesAfter = bytes.length;
  if (rewrittenEntries > 0) assertSameStructure(text, out);
  return {
    entries: messageLines.length,
    rewrittenEntries,
    payloads,
    bytesBefore,
    bytesAfter,
    bytesFreed: bytesBefore - bytesAfter,
    invalidLines,
    text: out,
    bytes,
  };
}

/** `line` with the JSON values at each path replaced by the given strings; every other byte kept. */
function spliceValues(line: Buffer, edits: Array<{ path: JsonStep[]; value: string }>): Buffer {
  const latin1 = line.toString("latin1");
  const spans = edits
    .map((e) => ({ ...findJsonValueSpan(latin1, e.path), value: e.value }))
    .sort((a, b) => b.start - a.start);
  let out = line;
  for (const span of spans)
    out = Buffer.concat([
      out.subarray(0, span.start),
      Buffer.from(JSON.stringify(span.value), "utf8"),
      out.subarray(span.end),
    ]);
  return out;
}

/**
 * Throws `state_corrupt` unless `after` has the same lines as `before` with
 * the same type, id and parentId each (the host's tree must not change).
 */
export function assertSameStructure(before: string, after: string): void {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length !== b.length)
    throw new LedgerError("state_corrupt", `Expected the cleaned session to keep ${a.length} lines, got ${b.length}`);
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const x = JSON.parse(a[i] as string) as Record<string, unknown>;
    let y: Record<string, unknown>;
    try {
      y = JSON.parse(b[i] as string) as Record<string, unknown>;
    } catch (err) {
      throw new LedgerError(
        "state_corrupt",
        `Expected line ${i + 1} of the cleaned session to be JSON, got a parse error`,
        { cause: err },
      );
    }
    for (const key of ["type", "id", "parentId", "timestamp"] as const) {
      if (x[key] !== y[key])
        throw new LedgerError(
          "state_corrupt",
          `Expected line ${i + 1} to keep its ${key} \`${String(x[key])}\`, got \`${String(y[key])}\``,
        );
    }
  }
}
