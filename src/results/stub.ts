import { LEDGER_MARKER } from "../host/messages.js";
import { summarizeForStub } from "./stub-summary.js";

/** First-line prefix of every artifact stub. */
export const STUB_PREFIX = `${LEDGER_MARKER} artifact `;
/** Closing line of every artifact stub. */
export const STUB_CLOSE = "[/context-ledger artifact]";

/** Inputs of {@link buildStub}. */
export interface BuildStubOptions {
  handle: string;
  /** The original text (for preview and summary; never embedded whole). */
  text: string;
  /** Chars of head-and-tail preview. @default 600 */
  previewChars?: number;
  /** What produced it (tool name), shown in the summary line. */
  label?: string;
  /** Length of the full original when `text` is a host-truncated copy. @default text.length */
  totalChars?: number;
  /** Stored metadata, when known (unused fields are ignored). */
  meta?: unknown;
}

/**
 * The prompt-side stand-in for an offloaded output: handle, a deterministic
 * one-to-three-line summary, a head-and-tail preview, and how to fetch more.
 */
export function buildStub(options: BuildStubOptions): string {
  const previewChars = Math.max(0, options.previewChars ?? 600);
  const total = options.totalChars ?? options.text.length;
  const summary = summarizeForStub(options.text, { label: options.label, totalChars: total });
  const lines = [`${STUB_PREFIX}${options.handle}]`, ...summary];
  if (previewChars > 0) {
    const head = Math.ceil(previewChars * 0.6);
    const tail = previewChars - head;
    if (options.text.length <= previewChars) {
      lines.push("preview:", options.text);
    } else {
      lines.push("preview (head):", options.text.slice(0, head));
      lines.push(`[... ${(options.text.length - head - tail).toLocaleString("en-US")} chars not shown ...]`);
      if (tail > 0) lines.push("preview (tail):", options.text.slice(options.text.length - tail));
    }
  }
  lines.push(`fetch: ledger_fetch {"handle":"${options.handle}","selector":{"kind":"grep","pattern":"error"}} (selectors: headtail, head, tail, grep, range, json)`);
  lines.push(STUB_CLOSE);
  return lines.join("\n");
}

/** True for any block the engine itself wrote (stubs, summaries, checkpoints): never stashed or offloaded again. */
export function isLedgerBlock(text: unknown): boolean {
  return typeof text === "string" && text.trimStart().startsWith(LEDGER_MARKER);
}

/** The handle a stub points at, or undefined. */
export function parseStubHandle(text: unknown): string | undefined {
  if (typeof text !== "string" || !text.startsWith(STUB_PREFIX)) return undefined;
  const m = /^ledger:v1:sha256:[0-9a-f]{64}/.exec(text.slice(STUB_PREFIX.length));
  return m?.[0];
}
