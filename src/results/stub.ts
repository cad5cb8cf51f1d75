import { HANDLE_PREFIX, isHandle } from "../artifacts/handle.js";
import { LEDGER_MARKER } from "../host/messages.js";
import { buildPreview, DEFAULT_PREVIEW_CHARS } from "./preview.js";
import { redactSecrets } from "./redact.js";
import { summarizeOutput } from "./summarize-output.js";

/** Every block context-ledger injects into a prompt starts with this. */
export const LEDGER_BLOCK_PREFIX = LEDGER_MARKER;
/** First-line prefix of every artifact stub (followed by the handle and `]`). */
export const STUB_PREFIX = `${LEDGER_MARKER} artifact `;
/** Same as {@link STUB_PREFIX}. */
export const STUB_OPEN = STUB_PREFIX;
/** Last line of every artifact stub. */
export const STUB_CLOSE = "[/context-ledger artifact]";

/** Inputs of {@link buildStub}. */
export interface BuildStubOptions {
  handle: string;
  /** The original text, for summary and preview (never embedded whole). */
  text?: string;
  /** Chars of head-and-tail preview; 0 for none. @default 600 */
  previewChars?: number;
  /** What produced it (tool name), shown in the summary. */
  label?: string;
  /** Length of the full original when `text` is a host-truncated copy. @default text.length */
  totalChars?: number;
  /** Exit code from the tool's details, for the summary. */
  exitCode?: number | null;
  /** Stored metadata; used for the summary when `text` is absent. */
  meta?: unknown;
  /** Ready-made summary lines (replaces the computed summary). */
  summary?: string;
  /** Ready-made preview (replaces the computed one). */
  preview?: string;
  /**
   * Secret redaction applied to the summary and the preview (the preview is
   * redacted before it is cut). Pass the agent's rules (`rt.redact`); `(t) => t`
   * only when config switches redaction off. @default the built-in rules
   */
  redact?: (text: string) => string;
}

/**
 * The prompt-side stand-in for an offloaded output: the handle, a
 * deterministic 1-3 line summary, a head-and-tail preview, and how to fetch
 * more. Summary and preview always pass through `redact` (the built-in
 * rules unless the caller gives the agent's).
 */
export function buildStub(options: BuildStubOptions): string {
  const text = options.text ?? "";
  const redact = options.redact ?? redactSecrets;
  const previewChars = Math.max(0, options.previewChars ?? DEFAULT_PREVIEW_CHARS);
  const summary = redact(options.summary ?? stubSummary(options));
  const preview = options.preview !== undefined ? redact(options.preview) : previewChars > 0 && text ? buildPreview(text, previewChars, redact) : "";
  const lines = [`${STUB_PREFIX}${options.handle}]`, summary];
  if (preview) lines.push("--- preview (head and tail) ---", preview, "--- end preview ---");
  lines.push(
    `Full output stored losslessly. Fetch slices: ledger_fetch {"handle":"${options.handle}","selector":{"kind":"grep","pattern":"error"}} (selector kinds: headtail, head, tail, grep, range, json); metadata: ledger_peek.`,
    STUB_CLOSE,
  );
  return lines.join("\n");
}

function stubSummary(options: BuildStubOptions): string {
  if (options.text !== undefined) {
    const s = summarizeOutput(options.text, { toolName: options.label, exitCode: options.exitCode });
    const total = options.totalChars;
    return total !== undefined && total > options.text.length ? `${s}\n(original ${total.toLocaleString("en-US")} chars; summary from the first ${options.text.length.toLocaleString("en-US")})` : s;
  }
  const m = (options.meta ?? {}) as { bytes?: unknown; lines?: unknown; format?: unknown };
  const parts = [options.label ? `${options.label} output` : "artifact"];
  if (typeof m.bytes === "number") parts.push(`${m.bytes.toLocaleString("en-US")} bytes`);
  if (typeof m.lines === "number") parts.push(`${m.lines.toLocaleString("en-US")} lines`);
  if (typeof m.format === "string") parts.push(m.format);
  return parts.join(" · ");
}

/**
 * Self-ingest guard: true for anything context-ledger wrote (stubs, summaries,
 * checkpoints, fetch answers), which is never stashed or offloaded again.
 */
export function isLedgerBlock(text: unknown): boolean {
  return typeof text === "string" && text.trimStart().startsWith(LEDGER_MARKER);
}

/** The handle an artifact stub points at, or undefined when `text` is not a stub. */
export function parseStubHandle(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const start = text.trimStart();
  if (!start.startsWith(STUB_PREFIX)) return undefined;
  const candidate = start.slice(STUB_PREFIX.length, STUB_PREFIX.length + HANDLE_PREFIX.length + 64);
  return isHandle(candidate) && start[STUB_PREFIX.length + candidate.length] === "]" ? candidate : undefined;
}
