import { HANDLE_PREFIX, isHandle, shortHandleOf, countLines } from "../artifacts/index.js";
import { execRetention, parseHostCopy } from "./host-copy.js";
import { LEDGER_MARKER } from "../host/messages.js";
import { buildPreview, DEFAULT_PREVIEW_CHARS } from "./preview.js";
import { redactSecrets } from "./redact.js";
import { summarizeOutput } from "./summarize-output.js";
import { PACKED_TARBALL } from "../version.js";

/** First-line prefix of every artifact stub (followed by the handle and `]`). */
export const STUB_PREFIX = `${LEDGER_MARKER} artifact `;
/** Last line of every artifact stub. */
const STUB_CLOSE = "[/context-ledger artifact]";

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
   * redacted before it is cut). Pass the agent's rules (`deps.redact`); `(t) => t`
   * only when config switches redaction off. @default the built-in rules
   */
  redact?: (text: string) => string;
  /** What the handle holds compared with the tool's output (true size; whether it is all of it). */
  coverage?: StubCoverage;
  /**
   * The stub goes into the host's transcript, where it outlives the plugin: add {@link offRampLine}. The prompt
   * never carries it ({@link promptStubText}). @default false
   */
  offRamp?: boolean;
}

/**
 * How a transcript stub tells a person reading the chat (2026.4.24's chat history shows paid-down answers as stubs)
 * where the original is: in chat while the plugin runs, and once it is uninstalled (its command gone with it) the
 * standalone command run by `npx` from the tarball the operator installed, in that tarball's folder, from the npm
 * cache the install filled (`--offline`: no registry needed; `--yes`: no prompt, which npm's `yes=false` refuses).
 * Both with the handle's short form ({@link shortHandleOf}; the stub's first line has it whole). Deterministic for a
 * handle and version, so the stub stays byte-stable. The prompt never carries it ({@link promptStubText});
 * 2026.4.24's precheck sizes it in the raw transcript, so it stays one short line.
 */
export function offRampLine(handle: string): string {
  return `In chat: \`/ledger fetch ${shortHandleOf(handle)}\`. Uninstalled: \`${uninstalledFetchCommand(handle)}\`.`;
}

/** The command that prints an output's original bytes once the plugin is uninstalled (see {@link offRampLine}). */
export function uninstalledFetchCommand(handle: string): string {
  return `npx --yes --offline -p ./${PACKED_TARBALL} context-ledger artifact fetch ${shortHandleOf(handle)} --raw`;
}

/** The off-ramp line of any handle, and its wordings with a `<handle>` placeholder, as stubs written before hold it. */
const OFF_RAMP_PATTERN = /\nIn chat: `\/ledger fetch [^`\n]*`\. (?:Without context-ledger|Uninstalled): [^\n]*/;

/** Earlier wordings of {@link offRampLine}, still in transcripts written before: left out of prompts too. */
const OFF_RAMP_LINES_BEFORE = [
  "Without context-ledger (no ledger tools): the operator gets it with `context-ledger artifact fetch <handle>` or `context-ledger export`.",
];

/** A stub as the prompt shows it: without the transcript's off-ramp line (tokens the model has no use for). */
export function promptStubText(text: string): string {
  return OFF_RAMP_LINES_BEFORE.reduce((t, line) => t.replace(`\n${line}`, ""), text.replace(OFF_RAMP_PATTERN, ""));
}

/** What a stub's handle holds, so the prompt never implies more (or less) than was kept. */
export interface StubCoverage {
  /** Chars and lines of the artifact behind the handle. */
  chars: number;
  lines: number;
  /** Undefined when the artifact is the whole output; else why it is not, said plainly. */
  partial?: string;
}

/**
 * The exact calls that read lines `from`-`to` of an artifact: direct, and
 * through Tool Search's `tool_call` (2026.9.x hides plugin tools behind it).
 */
export function fetchCallExamples(handle: string, from = 1, to = 50): { direct: string; viaToolCall: string } {
  const args = JSON.stringify({ handle, lines: `${from}-${to}` });
  return { direct: `ledger_fetch ${args}`, viaToolCall: `tool_call {"id":"ledger_fetch","args":${args}}` };
}

/**
 * The coverage of a stub whose artifact is `text` itself: whole, unless the
 * text is the host's truncated copy (its notice says how much was left out).
 */
export function coverageOfText(text: string, toolName?: string): StubCoverage {
  const cut = parseHostCopy(text);
  const base = { chars: text.length, lines: countLines(text) };
  if (cut.omitted === undefined) {
    const retention = execRetention(text, { exec: toolName === "exec" });
    return retention ? { ...base, partial: retention } : base;
  }
  const keptLines = countLines(cut.head) + (cut.tail ? countLines(cut.tail) : 0);
  return {
    ...base,
    partial: `host kept ${keptLines.toLocaleString("en-US")} lines, ${cut.keptChars.toLocaleString("en-US")} of ${(cut.keptChars + cut.omitted).toLocaleString("en-US")} chars; the rest was not captured`,
  };
}

function coverageLine(c: StubCoverage): string {
  const size = `${c.chars.toLocaleString("en-US")} chars · ${c.lines.toLocaleString("en-US")} lines`;
  return c.partial
    ? `Stored under this handle: ${size}, NOT the whole output (${c.partial}).`
    : `Full output stored losslessly under this handle: ${size}.`;
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
  const preview =
    options.preview !== undefined
      ? redact(options.preview)
      : previewChars > 0 && text
        ? buildPreview(text, previewChars, redact)
        : "";
  const lines = [`${STUB_PREFIX}${options.handle}]`, summary];
  if (preview) lines.push("--- preview (head and tail) ---", preview, "--- end preview ---");
  const calls = fetchCallExamples(options.handle);
  const coverage =
    options.coverage ??
    (options.text !== undefined && options.totalChars === undefined
      ? coverageOfText(options.text, options.label)
      : undefined);
  lines.push(
    coverage ? coverageLine(coverage) : "Full output stored losslessly under this handle.",
    `Read it: ${calls.direct} (or "selector":{"kind":"grep","pattern":"error"}; kinds headtail, head, tail, grep, range, json). If ledger_fetch is not in your tools, call ${calls.viaToolCall}. Metadata: ledger_peek.`,
    ...(options.offRamp ? [offRampLine(options.handle)] : []),
    STUB_CLOSE,
  );
  return lines.join("\n");
}

function stubSummary(options: BuildStubOptions): string {
  if (options.text !== undefined) {
    const s = summarizeOutput(options.text, { toolName: options.label, exitCode: options.exitCode });
    const total = options.totalChars;
    return total !== undefined && total > options.text.length
      ? `${s}\n(original ${total.toLocaleString("en-US")} chars; summary from the first ${options.text.length.toLocaleString("en-US")})`
      : s;
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
 * checkpoints, fetch answers), which is never stashed or offloaded again. A
 * fetch answer that came back through Tool Search is a `tool_call` JSON
 * envelope (2026.9.x) and counts too.
 */
export function isLedgerBlock(text: unknown): boolean {
  if (typeof text !== "string") return false;
  const start = text.trimStart();
  return start.startsWith(LEDGER_MARKER) || (start.startsWith("{") && isLedgerToolEnvelope(start));
}

/** Largest `tool_call` envelope parsed to tell whether it wraps a ledger tool's answer. */
const MAX_ENVELOPE_CHARS = 256 * 1024;

function isLedgerToolEnvelope(text: string): boolean {
  if (text.length > MAX_ENVELOPE_CHARS || !text.includes("ledger_")) return false;
  try {
    const e = JSON.parse(text) as { tool?: { name?: unknown }; result?: { content?: { text?: unknown }[] } };
    const name = e.tool?.name;
    const first = e.result?.content?.[0]?.text;
    return (
      (name === "ledger_fetch" || name === "ledger_peek" || name === "ledger_search") &&
      typeof first === "string" &&
      first.startsWith(LEDGER_MARKER)
    );
  } catch {
    return false;
  }
}

/** The handle an artifact stub points at, or undefined when `text` is not a stub. */
export function parseStubHandle(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const start = text.trimStart();
  if (!start.startsWith(STUB_PREFIX)) return undefined;
  const candidate = start.slice(STUB_PREFIX.length, STUB_PREFIX.length + HANDLE_PREFIX.length + 64);
  return isHandle(candidate) && start[STUB_PREFIX.length + candidate.length] === "]" ? candidate : undefined;
}
