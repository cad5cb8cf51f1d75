/**
 * What each OpenClaw host line means by the numbers it hands the engine, and how it
 * sizes the prompt before it lets the model answer. Filled by reading each line's
 * dist (see docs/host-lines.md for the file and function behind every number).
 * Data only: `host/` describes the host, the engine decides what to do with it.
 */

/** The host lines context-ledger knows, oldest first. */
export const HOST_LINE_IDS = ["2026.4", "2026.5", "2026.6", "2026.7", "2026.8", "2026.9"] as const;

/** One host line (year.month of the release). */
export type HostLine = (typeof HOST_LINE_IDS)[number];

/** The newest line the table knows: what a version past the table, or a caller that names no line, is read as. */
export const NEWEST_HOST_LINE: HostLine = HOST_LINE_IDS[HOST_LINE_IDS.length - 1] as HostLine;

/** The host's pre-prompt overflow precheck (`shouldPreemptivelyCompactBeforePrompt`). */
export interface PrecheckRule {
  /** Tokens reserved off the window (`reserveTokens`; 2026.4.24 floors it at 20,000). */
  reserveTokens: number;
  /** The prompt budget never drops below min(this, window × {@link minPromptRatio}). */
  minPromptTokens: number;
  minPromptRatio: number;
  /** The chars/4 estimate is multiplied by this (`SAFETY_MARGIN`). */
  safetyMargin: number;
  /** Tokens added per message boundary (system prompt and the live prompt each get one). */
  boundaryTokens: number;
}

/** The OpenAI-completions transport's output clamp (`estimateOpenAICompletionsInputTokens`). */
export interface OutputClampRule {
  /** The chars/4 estimate of the whole request is multiplied by this. */
  safetyMargin: number;
  /** A non-Latin character counts this many chars. */
  nonLatinWeight: number;
}

/** The reply runner's preflight compaction (`runPreflightCompactionIfNeeded`). */
export interface PreflightRule {
  /** Fires when last usage (prompt + output) + the new prompt ≥ window − reserveFloor − softThreshold. */
  reserveFloorTokens: number;
  softThresholdTokens: number;
  /**
   * compact() reasons the host treats as "skip, run the model" (`isPreflightCompactionSkipReason`); other failures skip
   * the model.
   */
  skipReasonText: string | undefined;
}

/**
 * Where the host starts its own pre-compaction work (2026.8.x onwards, `agent-runner-memory-*` with
 * memory-core's `buildMemoryFlushPlan`), reserve = min(floor, window × ratio):
 * - after each run and before each reply, a memory-flush turn once the last request's provider-reported
 *   prompt tokens (with the last reply's output near the threshold, and the new message) reach
 *   window − reserve − soft threshold;
 * - before each reply, a preflight compaction (the flush first) once that prompt, its reply's output
 *   and the new prompt reach window − reserve.
 * A plan kept below both never sets either off.
 */
export interface HostThresholdRule {
  /** `DEFAULT_AGENT_COMPACTION_RESERVE_TOKENS_FLOOR`. */
  reserveFloorTokens: number;
  /** `MAX_COMPACTION_RESERVE_RATIO`: the reserve never exceeds this share of the window. */
  maxReserveRatio: number;
  /**
   * `DEFAULT_MEMORY_FLUSH_SOFT_TOKENS` (the operator may set `memoryFlush.softThresholdTokens`); capped at half of
   * window − reserve.
   */
  softThresholdTokens: number;
  /**
   * Provider tokens per host unit (weighted chars / 4) the engine allows for: the thresholds compare the provider's
   * own prompt count, and tool output (logs, JSON, numbers) runs denser than 4 chars a token.
   */
  providerTokensPerUnit: number;
}

/** The operator's pre-compaction memory-flush settings (`agents.defaults.compaction.memoryFlush`). */
export interface MemoryFlushSettings {
  /** False when the operator turned the flush off. */
  enabled: boolean;
  /** `softThresholdTokens`, when set. */
  softThresholdTokens: number | undefined;
}

/** The host's memory flush when the operator set nothing: on, at the default soft threshold. */
export const DEFAULT_MEMORY_FLUSH: Readonly<MemoryFlushSettings> = Object.freeze({
  enabled: true,
  softThresholdTokens: undefined,
});

/** Per-line semantics of the engine contract. */
export interface HostLineSemantics {
  line: HostLine;
  /** `whole-window`: tokenBudget is the model's context window; `prompt-budget`: already net of the host's reserves. */
  tokenBudget: "whole-window" | "prompt-budget";
  /** Factory called with `{ config, agentDir, workspaceDir }` (else with no argument). */
  factoryArgument: boolean;
  /** How finished turns reach the engine. */
  ingestion: "afterTurn" | "commitTurn";
  /** Where the raw transcript lives and what `sessionFile` is. */
  transcriptStore: "jsonl" | "sqlite";
  /**
   * maintain() may rewrite SQLite transcript entries it located itself (20-turn sessions, docs/host-lines.md):
   * - 2026.9.6: on. After a rewrite the host re-indexes for about a second (`chat.history` answers the retryable
   *   "session history is rebuilding"). A rewritten transcript lets a plan that peaks just under the memory flush's
   *   threshold reach it, and the flush then queues the user's next message: the plan keeps below that threshold
   *   ({@link HostThresholdRule}).
   * - 2026.8.2: off. The turn's own maintain does not see its entries yet, and a rewrite from the next turn's
   *   bootstrap maintain ends that turn before the model ("Session transcript anchor was not returned").
   */
  sqliteRewrite: boolean;
  /** The host appends the live user turn after assemble (assemble sees history only). */
  appendsLivePrompt: boolean;
  /**
   * The host appends the current turn's tool calls and results after assemble too
   * (2026.8.x onwards: every assemble of a tool turn sees history only), each result
   * cut to min(window × 0.3 × 4 chars, 16,000) plus its notice: room for one is kept.
   */
  appendsCurrentTurnResults: boolean;
  /**
   * The generic precheck over the assembled view, or undefined when it does not size the view (skipped for
   * `ownsCompaction: true`, or sized on raw history).
   */
  precheck: PrecheckRule | undefined;
  /**
   * 2026.4.24's precheck sizes the raw transcript, not the view: maintain() pays it down, the view plans under its
   * admitted budget.
   */
  rawPrecheck: PrecheckRule | undefined;
  /** The transport's output clamp, or undefined when the line has none. */
  outputClamp: OutputClampRule | undefined;
  /** Preflight compaction before each reply, or undefined. */
  preflight: PreflightRule | undefined;
  /** The prompt size at which the host starts its memory flush / preflight compaction (8.x onwards), or undefined. */
  hostThreshold: HostThresholdRule | undefined;
  /** Whether the host reads `promptAuthority` from assemble's result. */
  honoursPromptAuthority: boolean;
  /** `registerAgentToolResultMiddleware` accepted from a non-bundled plugin. */
  captureMiddleware: boolean;
  /** `rewriteTranscriptEntries` in maintain's runtimeContext, with entry ids the engine can learn. */
  rewriteWithEntryIds: boolean;
  /**
   * Tool outputs are captured in `after_tool_call`, beside the call; false: at turn end only (the transcript already
   * holds all `exec` kept, and a capture beside each call made 2026.4.24's gateway queue the user's next message).
   */
  capturesAfterToolCall: boolean;
  /**
   * maintain() reclaims a superseded message line of the JSONL file at any size (the chat history lists every message
   * line of the file); false where a file replaced between a run's lock releases ends the next turn.
   */
  reclaimsMessagesAtAnySize: boolean;
  /**
   * A whole-window `tokenBudget` is capped at the window less the output allowance (the transport asks for both);
   * false where the budget is already net of reserves or sized by the raw precheck ({@link rawPrecheck}).
   */
  capsBudgetBelowOutput: boolean;
  /**
   * System prompt and tool-schema chars of a bare agent's request on this line (measured
   * through the mock model); used until the host reports the real ones (`llm_input`).
   */
  defaultOverhead: { systemChars: number; toolsChars: number };
  /** What the host wraps an `exec` command in before it reaches the shell's `-c` ({@link ExecArgumentRule}). */
  execArgument: ExecArgumentRule;
}

/**
 * How a host line turns an `exec` command into the shell's `-c` argument (`prepareHostExecSpawn` and what
 * came before it in `bash-tools.exec-runtime-*`). The argument must stay under the kernel's limit for one
 * argument, so a plugin that rewrites the command has to count these too.
 */
export interface ExecArgumentRule {
  /**
   * `tools.exec.pathPrepend` becomes a prefix `export PATH="${OPENCLAW_PREPEND_PATH}${PATH:+:$PATH}"; unset
   * OPENCLAW_PREPEND_PATH; ` (`wrapPosixCommandWithPathPrepend`, 2026.5.28 on).
   */
  pathPrependPrefix: boolean;
  /**
   * For bash and zsh, the command is sourced after the login-shell snapshot (`buildSnapshotWrappedCommand`,
   * 2026.6.11 on): `if [ -r '<snapshot>' ]; then . '<snapshot>'; fi`, the env restore lines, then
   * `eval '<command>'` with every `'` written as `'\''` (4 bytes). Off with `OPENCLAW_EXEC_SHELL_SNAPSHOT=0`.
   */
  snapshotEval: boolean;
}

const EXEC_ARG_424: ExecArgumentRule = { pathPrependPrefix: false, snapshotEval: false };
const EXEC_ARG_5X: ExecArgumentRule = { pathPrependPrefix: true, snapshotEval: false };
const EXEC_ARG_6X: ExecArgumentRule = { pathPrependPrefix: true, snapshotEval: true };

const PRECHECK_424: PrecheckRule = {
  reserveTokens: 20_000,
  minPromptTokens: 8_000,
  minPromptRatio: 0.5,
  safetyMargin: 1.2,
  boundaryTokens: 0,
};
const PRECHECK_5X: PrecheckRule = {
  reserveTokens: 16_384,
  minPromptTokens: 8_000,
  minPromptRatio: 0.5,
  safetyMargin: 1.2,
  boundaryTokens: 4,
};
const CLAMP: OutputClampRule = { safetyMargin: 1.25, nonLatinWeight: 4 };
// What each line sends before any history (the reset-loop scenario's first request): 2026.5.28 sent 16,006 system +
// 43,793 tool-schema chars, 2026.6.11 20,136 + 50,590, 2026.7.35 17,733 + 35,526, 2026.9.6 21,150 + 9,051 (plugin
// tools behind tool search). 2026.8.2 19,031 + 84,982 through the gateway (another run 17,830 + 56,705): at 32k
// nothing is left.
const OVERHEAD_5X = { systemChars: 21_000, toolsChars: 52_000 };
const OVERHEAD_8X = { systemChars: 19_000, toolsChars: 85_000 };
const OVERHEAD_9X = { systemChars: 22_000, toolsChars: 10_000 };
const PREFLIGHT: PreflightRule = {
  reserveFloorTokens: 20_000,
  softThresholdTokens: 4_000,
  skipReasonText: "nothing to compact",
};
// 2026.8.2 and 2026.9.6 (`agent-runner-memory-*`): fires at window − min(20,000, window × 0.25) (the soft threshold is
// the memory flush's, which runs before it: HOST_THRESHOLD_8X); a forced compaction that is not a skip ends the turn
// before the model.
const PREFLIGHT_8X: PreflightRule = {
  reserveFloorTokens: 20_000,
  softThresholdTokens: 0,
  skipReasonText: "nothing to compact",
};
// On 2026.9.6 (32k, 20 tool turns, debug log) the post-run flush check read the last request's
// prompt tokens (the provider's usage: tool schemas and framing included, hence chars/4 of the whole request); a plan
// that peaked at 19,960 passed, one that reached 20,000 started the flush.
const HOST_THRESHOLD_8X: HostThresholdRule = {
  reserveFloorTokens: 20_000,
  maxReserveRatio: 0.25,
  softThresholdTokens: 4_000,
  // Against a strict endpoint reporting o200k counts (same session): 1.06 tokens per unit, and a request
  // of 20,136 provider tokens (18,993 units) started the flush at 20,000.
  providerTokensPerUnit: 1.1,
};

// 2026.5.28 through 2026.7.35: the whole window as tokenBudget, JSONL transcripts, commitTurn, the generic precheck.
// 2026.6.11 and 2026.7.35 read alike in every field; they keep a row each because the event log, the doctor and the
// host tests name the line a host runs. 2026.5.28 differs only in where tool outputs are captured.
const WHOLE_WINDOW_JSONL: Omit<HostLineSemantics, "line"> = {
  defaultOverhead: OVERHEAD_5X,
  execArgument: EXEC_ARG_6X,
  appendsCurrentTurnResults: false,
  capturesAfterToolCall: true,
  reclaimsMessagesAtAnySize: false,
  capsBudgetBelowOutput: true,
  tokenBudget: "whole-window",
  factoryArgument: true,
  ingestion: "commitTurn",
  transcriptStore: "jsonl",
  sqliteRewrite: false,
  appendsLivePrompt: true,
  precheck: PRECHECK_5X,
  rawPrecheck: undefined,
  outputClamp: CLAMP,
  preflight: PREFLIGHT,
  hostThreshold: undefined,
  honoursPromptAuthority: true,
  captureMiddleware: false,
  rewriteWithEntryIds: true,
};

// 2026.8.2 onwards: the prompt budget after reserves as tokenBudget, SQLite transcripts, the host's own thresholds.
const PROMPT_BUDGET_SQLITE: Omit<HostLineSemantics, "line" | "defaultOverhead" | "sqliteRewrite"> = {
  execArgument: EXEC_ARG_6X,
  appendsCurrentTurnResults: true,
  capturesAfterToolCall: true,
  reclaimsMessagesAtAnySize: false,
  capsBudgetBelowOutput: false,
  tokenBudget: "prompt-budget",
  factoryArgument: true,
  ingestion: "commitTurn",
  transcriptStore: "sqlite",
  appendsLivePrompt: true,
  precheck: undefined,
  rawPrecheck: undefined,
  outputClamp: CLAMP,
  preflight: PREFLIGHT_8X,
  hostThreshold: HOST_THRESHOLD_8X,
  honoursPromptAuthority: true,
  captureMiddleware: true,
  rewriteWithEntryIds: false,
};

/** The table: one row per host line. */
export const HOST_LINES: Readonly<Record<HostLine, HostLineSemantics>> = Object.freeze({
  "2026.4": {
    defaultOverhead: { systemChars: 20_000, toolsChars: 40_000 },
    appendsCurrentTurnResults: false,
    line: "2026.4",
    execArgument: EXEC_ARG_424,
    capturesAfterToolCall: false,
    reclaimsMessagesAtAnySize: true,
    capsBudgetBelowOutput: false,
    tokenBudget: "whole-window",
    factoryArgument: false,
    ingestion: "afterTurn",
    transcriptStore: "jsonl",
    sqliteRewrite: false,
    appendsLivePrompt: true,
    precheck: undefined,
    rawPrecheck: PRECHECK_424,
    outputClamp: undefined,
    preflight: undefined,
    hostThreshold: undefined,
    honoursPromptAuthority: false,
    captureMiddleware: true,
    rewriteWithEntryIds: true,
  },
  "2026.5": { ...WHOLE_WINDOW_JSONL, line: "2026.5", capturesAfterToolCall: false, execArgument: EXEC_ARG_5X },
  "2026.6": { ...WHOLE_WINDOW_JSONL, line: "2026.6" },
  "2026.7": { ...WHOLE_WINDOW_JSONL, line: "2026.7" },
  "2026.8": { ...PROMPT_BUDGET_SQLITE, line: "2026.8", defaultOverhead: OVERHEAD_8X, sqliteRewrite: false },
  "2026.9": { ...PROMPT_BUDGET_SQLITE, line: "2026.9", defaultOverhead: OVERHEAD_9X, sqliteRewrite: true },
});

/**
 * Chars kept for one current-turn tool result the host appends after assemble (its per-result cap, the call's JSON, the
 * notice).
 */
export function currentTurnReserveChars(line: HostLineSemantics, contextWindow: number): number {
  if (!line.appendsCurrentTurnResults) return 0;
  return Math.min(Math.floor(contextWindow * 0.3 * 4), 16_000) + 1_500;
}

/**
 * The most provider prompt tokens a request may carry without the host starting its own
 * pre-compaction work: below the memory flush's threshold (unless the operator turned the flush
 * off), and with `replyTokens` (its reply and the next prompt) below the preflight compaction's.
 */
export function hostPromptLimit(
  rule: HostThresholdRule,
  contextWindow: number,
  flush: MemoryFlushSettings = DEFAULT_MEMORY_FLUSH,
  replyTokens = 0,
): number {
  const reserve = Math.min(rule.reserveFloorTokens, Math.floor(contextWindow * rule.maxReserveRatio));
  const preflightAt = contextWindow - reserve;
  let limit = preflightAt - 1 - replyTokens;
  if (flush.enabled) {
    const soft = Math.min(
      flush.softThresholdTokens ?? rule.softThresholdTokens,
      Math.floor((contextWindow - reserve) / 2),
    );
    limit = Math.min(limit, preflightAt - soft - 1);
  }
  return Math.max(0, limit);
}

/** The line of a host version string (`2026.7.35` → `2026.7`); versions past the table map to its newest row. */
export function hostLineOf(version: string | undefined): HostLine | undefined {
  const m = /^(\d{4})\.(\d{1,2})(?:\.|$|-)/.exec(version?.trim() ?? "");
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const key = `${year}.${month}`;
  if ((HOST_LINE_IDS as readonly string[]).includes(key)) return key as HostLine;
  if (year > 2026 || (year === 2026 && month > 9)) return NEWEST_HOST_LINE;
  if (year === 2026 && month < 4) return "2026.4";
  return undefined;
}

/**
 * The host lines that keep transcripts in `store`, as a range for help and docs
 * (`2026.4-2026.7`), read from the table so the text cannot drift from it.
 */
export function linesWithTranscriptStore(store: HostLineSemantics["transcriptStore"]): string {
  const lines = HOST_LINE_IDS.filter((l) => HOST_LINES[l].transcriptStore === store);
  const first = HOST_LINE_IDS.indexOf(lines[0] as HostLine);
  const contiguous = lines.every((l, i) => HOST_LINE_IDS[first + i] === l);
  if (lines.length < 2 || !contiguous) return lines.join(", ") || "none";
  return `${lines[0]}-${lines.at(-1)}`;
}
