/**
 * The host's own currency: OpenClaw sizes prompts by characters, not by BPE. Its
 * transport counts the text of every message, the JSON of every tool call and of the
 * tool schemas, a non-Latin character as 4, divides by 4 and adds 25 %; its precheck
 * divides by 4 and adds 20 %. A view that fits by exact BPE count can still be
 * clamped or compacted by the host, so the engine also counts what the host counts.
 */
import { hostPromptLimit, type HostLineSemantics, type MemoryFlushSettings } from "./host-lines.js";
import { safeJson } from "../json.js";

// Latin, Latin-1 and Latin Extended count as one char; everything above as `nonLatinWeight`.
// eslint-disable-next-line no-control-regex -- the range starts at NUL on purpose
const NON_LATIN = /[^\u0000-\u024f]/gu;

/** Characters as the host weighs them (non-Latin counts `weight`). */
export function hostChars(text: string, weight = 4): number {
  if (!text) return 0;
  const nonLatin = text.match(NON_LATIN)?.length ?? 0;
  return text.length + nonLatin * (weight - 1);
}

/**
 * Weighted characters of one message as the host's estimators see it: block texts, tool-call JSON, other blocks as
 * JSON. With `memo` (the runtime owns one: the host hands the same objects to every call of a session, and the
 * non-Latin scan of a long text is not free) the host-weight size of each object is computed once.
 */
export function hostMessageChars(message: unknown, weight = 4, memo?: WeakMap<object, number>): number {
  if (!message || typeof message !== "object") return 0;
  if (weight !== 4 || !memo) return weighMessage(message, weight);
  let chars = memo.get(message);
  if (chars === undefined) memo.set(message, (chars = weighMessage(message, weight)));
  return chars;
}

function weighMessage(message: object, weight: number): number {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return hostChars(content, weight);
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content) {
    if (!block || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (typeof b.text === "string") chars += hostChars(b.text, weight);
    else if (typeof b.thinking === "string") chars += hostChars(b.thinking, weight);
    else chars += hostChars(safeJson(b), weight);
  }
  return chars;
}

/** What the engine knows of the request the host will build around its view. */
export interface HostRequestShape {
  /** The model's context window (tokens). */
  contextWindow: number;
  /** The output allowance the host asks for (the model's maxTokens). */
  maxOutputTokens: number;
  /** System prompt (with any addition the engine makes to it), weighted chars. */
  systemChars: number;
  /** Tool schemas, weighted chars (the transport counts them, the precheck does not). */
  toolsChars: number;
  /** The live user turn the host appends after assemble, weighted chars. */
  livePromptChars: number;
  /**
   * Tokens the host adds to the last prompt before a reply (that prompt's reply and the next prompt): the session's
   * recent answers.
   */
  replyTokens?: number;
  /** The operator's memory-flush settings; the host's defaults when absent. */
  memoryFlush?: MemoryFlushSettings;
}

/** The budget the view's messages must fit, in host units (weighted chars / 4). */
export interface HostBudget {
  /** Host units (chars / 4) left for the view's messages; undefined when no host estimator binds. */
  messageUnits: number | undefined;
  /** Which host rule binds (for logs and the debt reading). */
  rule: "output-clamp" | "precheck" | "host-threshold" | "none";
}

/**
 * The room the host leaves the view's messages, by the line's own estimators:
 * - output clamp: (system + tools + messages + live prompt) / 4 × 1.25 ≤ window − maxTokens − 1
 *   (else the host shrinks the output allowance below the model's maxTokens);
 * - precheck: ((messages + system + prompt) / 4 + boundaries) × 1.2 ≤ window − reserve
 *   (else the host compacts, and gives up or resets);
 * - host threshold: (system + tools + messages + appended) / 4, times the provider's tokens per such
 *   unit, below the host's memory-flush threshold, and with the reply below its preflight compaction's (else the host
 *   runs its own pre-compaction turn).
 * The tighter one binds.
 */
export function hostMessageBudget(line: HostLineSemantics, shape: HostRequestShape): HostBudget {
  const clampUnits = (shape.systemChars + shape.toolsChars + shape.livePromptChars) / 4;
  const precheckUnits = (shape.systemChars + shape.livePromptChars) / 4;
  let best: HostBudget = { messageUnits: undefined, rule: "none" };
  const consider = (units: number, rule: HostBudget["rule"]) => {
    const u = Math.max(0, Math.floor(units));
    if (best.messageUnits === undefined || u < best.messageUnits) best = { messageUnits: u, rule };
  };
  if (line.outputClamp) {
    const admitted = shape.contextWindow - shape.maxOutputTokens - 1;
    consider(admitted / line.outputClamp.safetyMargin - clampUnits, "output-clamp");
  }
  if (line.precheck) {
    const p = line.precheck;
    const minPrompt = Math.min(p.minPromptTokens, Math.max(1, Math.floor(shape.contextWindow * p.minPromptRatio)));
    const reserve = Math.min(p.reserveTokens, Math.max(0, shape.contextWindow - minPrompt));
    consider((shape.contextWindow - reserve) / p.safetyMargin - 2 * p.boundaryTokens - precheckUnits, "precheck");
  }
  if (line.hostThreshold) {
    const limit = hostPromptLimit(line.hostThreshold, shape.contextWindow, shape.memoryFlush, shape.replyTokens);
    consider(limit / line.hostThreshold.providerTokensPerUnit - clampUnits, "host-threshold");
  }
  return best;
}
