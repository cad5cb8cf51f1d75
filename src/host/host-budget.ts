/**
 * The budget figures the host lines pass or configure, read as numbers the engine can
 * plan with: the model's limits and memory-flush settings from the host config, a
 * degenerate `tokenBudget` made usable, and the prompt budget 2026.4.24 really admits.
 * Like `normalize.ts`, it reads and normalises; `assembly/budget.ts` decides.
 */
import { DEFAULT_MEMORY_FLUSH, HOST_LINES, type HostLine, type MemoryFlushSettings } from "./host-lines.js";

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
export function memoryFlushFromConfig(config: unknown): MemoryFlushSettings {
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

/** 2026.4.24's compaction reserve (OpenClaw's floor over pi's 16,384 default). */
export const HOST_424_RESERVE_TOKENS = HOST_LINES["2026.4"].rawPrecheck?.reserveTokens ?? 20_000;
/** 2026.4.24's precheck multiplies its chars/4 estimate by this. */
export const HOST_424_SAFETY_MARGIN = HOST_LINES["2026.4"].rawPrecheck?.safetyMargin ?? 1.2;

/**
 * The prompt budget (exact tokens) the host will really admit, from what it passed.
 * 2026.8.x onwards pass it. 2026.4.24 passes the whole context window, but its
 * precheck (sized on the raw transcript) admits only the window minus the reserve
 * (never below min(8000, window/2)), sized as chars/4 × 1.2. 2026.5.x-2026.7.x pass
 * the whole window; their own estimators are applied in the host's currency
 * (`host-estimate.ts`), the output allowance is reserved by the caller.
 */
export function hostPromptBudget(generation: HostLine, requested: unknown): unknown {
  if (generation !== "2026.4" || typeof requested !== "number" || !Number.isFinite(requested) || requested <= 0)
    return requested;
  const window = Math.floor(requested);
  const minPrompt = Math.min(8_000, Math.max(1, Math.floor(window * 0.5)));
  const reserve = Math.min(HOST_424_RESERVE_TOKENS, Math.max(0, window - minPrompt));
  return Math.max(1, Math.floor((window - reserve) / HOST_424_SAFETY_MARGIN));
}
