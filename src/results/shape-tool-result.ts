import type { AgentSettings } from "../config/schema.js";
import { LedgerError } from "../errors.js";
import { handleForBytes, countLines, type ArtifactMeta, type ArtifactOrigin, fmt } from "../artifacts/index.js";
import { detectFormat, STRUCTURED_FORMATS, type OutputFormat } from "./detect-format.js";
import { buildPreview } from "./preview.js";
import { redactSecrets, type RedactPatterns } from "./redact.js";
import { planSchemaStrip, type StrippedPart } from "./strip-schema.js";
import { buildStub, coverageOfText, isLedgerBlock, promptStubText, type StubCoverage } from "./stub.js";
import { summarizeOutput } from "./summarize-output.js";
import type { ToolPolicy } from "../config/tool-names.js";

/** Thresholds and sizes of result shaping (the `offload` and `schemaStrip` config). */
export interface ShapeLimits {
  /** @default 8000 */
  maxChars: number;
  /** @default 200 */
  maxLines: number;
  /** @default 2000 */
  structuredMaxChars: number;
  /** @default 600 */
  previewChars: number;
  /** Empty disables schema stripping. @default DEFAULT_SCHEMA_KEYS */
  schemaKeys: readonly string[];
  /** @default 10240 */
  maxFieldBytes: number;
}

/** Default {@link ShapeLimits}, equal to the config defaults. */
export const DEFAULT_SHAPE_LIMITS: ShapeLimits = {
  maxChars: 8_000,
  maxLines: 200,
  structuredMaxChars: 2_000,
  previewChars: 600,
  schemaKeys: ["schema", "$schema", "definitions", "$defs", "properties", "required"],
  maxFieldBytes: 10_240,
};

/** Inputs of {@link planToolResultShape}. */
export interface ShapePlanOptions {
  toolName: string;
  policy: ToolPolicy;
  limits: ShapeLimits;
  origin?: ArtifactOrigin;
  /** Exit code from the tool's details, for the summary. */
  exitCode?: number | null;
  /** Extra redaction patterns for preview and summary. @default [] */
  redactPatterns?: RedactPatterns;
  /** Redact preview and summary. @default true */
  redact?: boolean;
}

/** Content the caller must stash for the plan's handles to resolve. */
export interface PendingStash {
  handle: string;
  content: string;
  info: { kind: string; format: string; origin?: ArtifactOrigin };
}

/** What {@link planToolResultShape} decided. */
export interface ShapePlan {
  text: string;
  changed: boolean;
  /** Handles referenced by `text` (stub or pointers), in order. */
  handles: string[];
  /** What must be stashed (each handle is the SHA-256 of its content). */
  stashes: PendingStash[];
  originalChars: number;
  decision: "full" | "ledger-block" | "under-threshold" | "stripped" | "offloaded";
  format: OutputFormat;
}

/**
 * Decides how a tool result goes into the prompt, purely and synchronously:
 * `full` never touches it; our own blocks are never shaped again; `strip`
 * strips schema material only; `offload` and `ephemeral` strip first and, if
 * the result still breaks a threshold (chars, lines, or structured chars),
 * replace it with a stub whose artifact is the whole original text.
 */
export function planToolResultShape(text: string, options: ShapePlanOptions): ShapePlan {
  const base = { originalChars: text.length, handles: [] as string[], stashes: [] as PendingStash[] };
  if (options.policy === "full") return { ...base, text, changed: false, decision: "full", format: "text" };
  if (isLedgerBlock(text)) {
    // A stub from the transcript (paydown, session clean) carries its off-ramp line, which the prompt leaves out.
    const shown = promptStubText(text);
    return { ...base, text: shown, changed: shown !== text, decision: "ledger-block", format: "text" };
  }
  const format = detectFormat(text, { toolName: options.toolName });
  const { limits } = options;
  const strip =
    limits.schemaKeys.length > 0 && format === "json"
      ? planSchemaStrip(text, { schemaKeys: limits.schemaKeys, maxFieldBytes: limits.maxFieldBytes })
      : undefined;
  const current = strip?.changed ? strip.text : text;
  const stripped = (): ShapePlan => ({
    ...base,
    text: current,
    changed: true,
    handles: strip?.parts.map((p) => p.handle) ?? [],
    stashes: (strip?.parts ?? []).map((p) => partStash(p, options.origin)),
    decision: "stripped",
    format,
  });
  if (options.policy === "strip" || !overThreshold(current, format, limits)) {
    return strip?.changed ? stripped() : { ...base, text, changed: false, decision: "under-threshold", format };
  }
  const handle = handleForBytes(text);
  const stub = stubForText(handle, text, options, format);
  return {
    ...base,
    text: stub,
    changed: true,
    handles: [handle],
    stashes: [
      {
        handle,
        content: text,
        info: { kind: "tool-output", format, ...(options.origin ? { origin: options.origin } : {}) },
      },
    ],
    decision: "offloaded",
    format,
  };
}

/** The offload rule: over `maxChars`, over `maxLines`, or structured over `structuredMaxChars`. */
function overThreshold(text: string, format: OutputFormat, limits: ShapeLimits): boolean {
  if (text.length > limits.maxChars) return true;
  if (STRUCTURED_FORMATS.has(format) && text.length > limits.structuredMaxChars) return true;
  return countLines(text) > limits.maxLines;
}

/** The stub of an offloaded text (summary and preview redacted unless `redact: false`). */
export function stubForText(
  handle: string,
  text: string,
  options: Omit<ShapePlanOptions, "policy" | "limits"> & {
    limits: Pick<ShapeLimits, "previewChars">;
    coverage?: StubCoverage;
    /** For a stub written into the host's transcript (see {@link buildStub}). */
    offRamp?: boolean;
  },
  format?: OutputFormat,
): string {
  const clean = (s: string) => (options.redact === false ? s : redactSecrets(s, options.redactPatterns));
  const summary = summarizeOutput(text, {
    toolName: options.toolName,
    format: format ?? detectFormat(text, { toolName: options.toolName }),
    exitCode: options.exitCode,
  });
  return buildStub({
    handle,
    summary,
    preview: buildPreview(text, options.limits.previewChars, clean),
    redact: clean,
    coverage: options.coverage ?? coverageOfText(text, options.toolName),
    ...(options.offRamp ? { offRamp: true } : {}),
  });
}

/**
 * The stub of an artifact from its meta alone (no preview), for `ephemeral`
 * results whose text is no longer at hand; pass `text` to get the full stub.
 */
export function stubFor(
  handle: string,
  meta: Pick<ArtifactMeta, "bytes" | "lines" | "format" | "origin">,
  text?: string,
  previewChars = 600,
): string {
  if (text !== undefined)
    return stubForText(handle, text, { toolName: meta.origin.toolName ?? "tool", limits: { previewChars } });
  const who = meta.origin.toolName ? `${meta.origin.toolName} output · ` : "";
  return buildStub({ handle, summary: `${who}${fmt(meta.bytes)} bytes · ${fmt(meta.lines)} lines · ${meta.format}` });
}

function partStash(part: StrippedPart, origin: ArtifactOrigin | undefined): PendingStash {
  return {
    handle: part.handle,
    content: part.content,
    info: {
      kind: part.reason === "schema" ? "schema" : "field",
      format: part.format === "json" ? "json" : "text",
      ...(origin ? { origin } : {}),
    },
  };
}

/** Inputs of {@link shapeToolResultText}. */
export interface ShapeOptions extends ShapePlanOptions {
  /** Stores content; must return the handle of exactly that content. */
  stash: (content: string, info: PendingStash["info"]) => Promise<{ handle: string }>;
}

/** The answer of {@link shapeToolResultText}. */
export interface ShapeResult {
  text: string;
  handles: string[];
  changed: boolean;
  originalChars: number;
}

/**
 * Plans (see {@link planToolResultShape}) and stashes in one step. The
 * shaped text is returned only after every referenced artifact is stored; if
 * a stash fails, the error propagates and the caller keeps the original.
 */
export async function shapeToolResultText(text: string, options: ShapeOptions): Promise<ShapeResult> {
  const plan = planToolResultShape(text, options);
  for (const pending of plan.stashes) {
    const { handle } = await options.stash(pending.content, pending.info);
    if (handle !== pending.handle)
      throw new LedgerError(
        "artifact_corrupt",
        `Expected the store to return ${pending.handle} for the content hashing to it, got ${handle}`,
      );
  }
  return { text: plan.text, handles: plan.handles, changed: plan.changed, originalChars: plan.originalChars };
}

/** The shaping thresholds of an agent's settings (`offload` and `schemaStrip`). */
export function shapeLimitsOf(settings: AgentSettings): ShapeLimits {
  return {
    maxChars: settings.offload.maxChars,
    maxLines: settings.offload.maxLines,
    structuredMaxChars: settings.offload.structuredMaxChars,
    previewChars: settings.offload.previewChars,
    schemaKeys: settings.schemaStrip.enabled ? settings.schemaStrip.keys : [],
    maxFieldBytes: settings.schemaStrip.maxFieldBytes,
  };
}

/** True when the offload rule would move `text` out of the prompt. */
export function isOversized(text: string, settings: AgentSettings): boolean {
  return overThreshold(text, detectFormat(text), shapeLimitsOf(settings));
}
