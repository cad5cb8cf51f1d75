/**
 * The budget figures the host lines pass or configure, read as numbers the engine can
 * plan with: the model's limits and memory-flush settings from the host config, a
 * degenerate `tokenBudget` made usable, and the prompt budget 2026.4.24 really admits.
 * Like `normalize.ts`, it reads and normalises; `assembly/budget.ts` decides.
 */
import {
  currentTurnReserveChars,
  DEFAULT_MEMORY_FLUSH,
  type HostLineSemantics,
  type MemoryFlushSettings,
} from "./host-lines.js";

/** The model's limits as the host config declares them. */
export interface ModelLimits {
  contextWindow: number | undefined;
  maxTokens: number | undefined;
}

/** `v` floored when it is a finite number above 0, else undefined (host arguments may be anything). */
export const positiveInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;

/**
 * `models.providers.<p>.models[]` entry for `model` (`<provider>/<id>` or a bare id):
 * its `contextWindow` (or `contextTokens`) and `maxTokens`. Unknown → undefined fields.
 */
export function modelLimitsFromConfig(config: unknown, model: unknown): ModelLimits {
  const none: ModelLimits = { contextWindow: undefined, maxTokens: undefined };
  if (!config || typeof config !== "object" || typeof model !== "string" || model.length === 0) return none;
  try {
    const providers = ((config as { models?: { providers?: unknown } }).models?.providers ?? {}) as Record<
      string,
      unknown
    >;
    for (const [providerId, provider] of Object.entries(providers)) {
      const models = (provider as { models?: unknown } | undefined)?.models;
      if (!Array.isArray(models)) continue;
      for (const m of models as Record<string, unknown>[]) {
        const id = typeof m?.id === "string" ? m.id : undefined;
        if (!id || (model !== id && model !== `${providerId}/${id}`)) continue;
        return {
          contextWindow: positiveInt(m.contextTokens) ?? positiveInt(m.contextWindow),
          maxTokens: positiveInt(m.maxTokens),
        };
      }
    }
  } catch {
    // a hostile config getter: no limits known
  }
  return none;
}

/** Reads `agents.defaults.compaction.memoryFlush` from the host config (defaults when absent or unreadable). */
function memoryFlushFromConfig(config: unknown): MemoryFlushSettings {
  try {
    const flush = (
      config as { agents?: { defaults?: { compaction?: { memoryFlush?: Record<string, unknown> } } } } | undefined
    )?.agents?.defaults?.compaction?.memoryFlush;
    const soft = flush?.softThresholdTokens;
    return {
      enabled: flush?.enabled !== false,
      softThresholdTokens:
        typeof soft === "number" && Number.isFinite(soft) && soft >= 0 ? Math.floor(soft) : undefined,
    };
  } catch {
    // a hostile config getter: the host's defaults
    return DEFAULT_MEMORY_FLUSH;
  }
}

/** Why a budget was replaced, for logs and tests. */
export type BudgetSource = "host" | "fallback" | "raised" | "clamped";

/** The budget the planner works with, and where it came from. */
export interface NormalizedBudget {
  tokens: number;
  source: BudgetSource;
  /** What the host passed, for the record. */
  requested: unknown;
}

/** Options for {@link normalizeBudget}. */
export interface NormalizeBudgetOptions {
  /** Used when the host passes no usable number. */
  fallbackTokens: number;
  /** Floor for tiny budgets (the 2026.9 retry path passes 1). */
  minTokens: number;
  /** Ceiling, e.g. the model's context window when known. */
  maxTokens?: number;
}

/**
 * Degenerate budgets have one documented behaviour: not a finite number or
 * ≤ 0 → the fallback; below the floor → the floor; above the ceiling → the
 * ceiling. Never throws.
 */
export function normalizeBudget(requested: unknown, options: NormalizeBudgetOptions): NormalizedBudget {
  const n = typeof requested === "number" ? requested : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return { tokens: options.fallbackTokens, source: "fallback", requested };
  let tokens = Math.floor(n);
  if (tokens < options.minTokens) return { tokens: options.minTokens, source: "raised", requested };
  if (options.maxTokens !== undefined && tokens > options.maxTokens) {
    tokens = options.maxTokens;
    return { tokens, source: "clamped", requested };
  }
  return { tokens, source: "host", requested };
}

/**
 * The prompt budget (exact tokens) the host will really admit, from what it passed.
 * 2026.8.x onwards pass it; 2026.5.x-2026.7.x pass the whole window (their own estimators
 * are applied in the host's currency, `host-estimate.ts`, the output allowance is reserved by
 * the caller). A line whose precheck sizes the raw transcript ({@link HostLineSemantics.rawPrecheck},
 * 2026.4.24) passes the whole window but admits only the window less the reserve (never below
 * min(minPromptTokens, window × minPromptRatio)), sized as chars/4 × its safety margin.
 */
export function hostPromptBudget(semantics: HostLineSemantics, requested: unknown): unknown {
  const rule = semantics.rawPrecheck;
  if (!rule || typeof requested !== "number" || !Number.isFinite(requested) || requested <= 0) return requested;
  const window = Math.floor(requested);
  const minPrompt = Math.min(rule.minPromptTokens, Math.max(1, Math.floor(window * rule.minPromptRatio)));
  const reserve = Math.min(rule.reserveTokens, Math.max(0, window - minPrompt));
  return Math.max(1, Math.floor((window - reserve) / rule.safetyMargin));
}

/** What one assemble's host arguments say about its budget (see {@link readHostBudget}). */
export interface HostBudgetReading {
  /** The model's limits from the host config. */
  limits: ModelLimits;
  /** `runtimeSettings.limits.maxOutputTokens` (2026.8.x onwards), when usable. */
  runtimeMaxOutputTokens: number | undefined;
  /** `tokenBudget` when the line passes the whole context window, else undefined. */
  wholeWindow: number | undefined;
  /** The prompt budget the host really admits ({@link hostPromptBudget}), as passed when not a usable number. */
  promptBudget: unknown;
  /** The operator's memory-flush settings. */
  memoryFlush: MemoryFlushSettings;
  /** Chars kept for the current turn's tool result the host appends after assemble, for a context window. */
  appendedResultChars(contextWindow: number): number;
}

/** Reads every budget argument of one assemble at once: the host config, `tokenBudget`, `runtimeSettings`. */
export function readHostBudget(
  semantics: HostLineSemantics,
  args: { config: unknown; model: unknown; tokenBudget: unknown; runtimeSettings: unknown },
): HostBudgetReading {
  const rsLimits = (args.runtimeSettings as { limits?: { maxOutputTokens?: unknown } } | undefined)?.limits;
  return {
    limits: modelLimitsFromConfig(args.config, args.model),
    runtimeMaxOutputTokens: positiveInt(rsLimits?.maxOutputTokens),
    wholeWindow: semantics.tokenBudget === "whole-window" ? positiveInt(args.tokenBudget) : undefined,
    promptBudget: hostPromptBudget(semantics, args.tokenBudget),
    memoryFlush: memoryFlushFromConfig(args.config),
    appendedResultChars: (contextWindow) => currentTurnReserveChars(semantics, contextWindow),
  };
}
