/**
 * What 2026.4.24 loads of a JSONL session, and paying that down without touching the conversation. Its overflow
 * precheck (`shouldPreemptivelyCompactBeforePrompt`) sizes the larger of the assembled view and the session as its
 * session manager loads it (`buildSessionContext`: the newest compaction entry's summary, the kept messages from its
 * `firstKeptEntryId`, then everything after it). A user's messages and the model's answers are never rewritten, so
 * when that load outgrows its share of the budget after a turn, the engine compacts and records the compaction in the
 * host's own format (`jsonl-compaction.ts`): the host then loads the summary and the newest turns, while every answer
 * stays in the file as written, where `chat.history` shows it.
 */
import type { AgentSettings } from "../config/schema.js";
import { errorMessage } from "../errors.js";
import { fingerprintMessage, isGenuineUserMessage } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import { estimateRawTokens } from "../host/raw-tally.js";
import type { LedgerServices } from "../runtime/services.js";
import { compactSession, type CompactOutcome } from "./compact.js";
import { PAYDOWN_TARGET_SHARE } from "./paydown.js";
import { readJsonlTranscript, type JsonlEntry, type JsonlTranscript } from "./transcript-jsonl.js";

/** What paying down the host's load uses: compaction's services. */
export type HostLoadDeps = Pick<
  LedgerServices,
  "lastViews" | "sessions" | "store" | "counter" | "redact" | "logger" | "events"
>;

/** What {@link payDownHostLoad} found and did. */
export interface HostLoadResult {
  compacted: boolean;
  reason?: string;
  /** The session as the host loads it, in the precheck's units (chars / 4 per message), before. */
  loadedTokens: number;
  /** The share of the prompt budget the load is kept under. */
  targetTokens: number;
  /** The compaction entry the host's transcript got. */
  firstKeptEntryId?: string;
}

/**
 * The messages the host's session manager builds from the active branch (`buildSessionContext` of 2026.4.24's
 * pi-coding-agent): with a compaction entry on the branch, a `compactionSummary` message, the messages from its first
 * kept entry up to it, then the messages after it; otherwise every message.
 */
export function loadedMessages({ branch }: Pick<JsonlTranscript, "branch">): unknown[] {
  const at = branch.findLastIndex((e) => e.type === "compaction");
  const message = (e: JsonlEntry): unknown[] =>
    e.type === "message" && e.fields.message && typeof e.fields.message === "object" ? [e.fields.message] : [];
  if (at < 0) return branch.flatMap(message);
  const compaction = branch[at] as JsonlEntry;
  const keptAt = branch.findIndex((e, i) => i < at && e.id === compaction.fields.firstKeptEntryId);
  const summary = { role: "compactionSummary", summary: String(compaction.fields.summary ?? "") };
  const kept = keptAt < 0 ? [] : branch.slice(keptAt, at).flatMap(message);
  return [summary, ...kept, ...branch.slice(at + 1).flatMap(message)];
}

/**
 * The user message that opens the oldest of the newest whole turns whose loaded size stays within `tokens`; the newest
 * turn's at least (undefined when there is no user message).
 */
function newestTurnsWithin(messages: readonly unknown[], tokens: number): unknown {
  let sum = 0;
  let from: unknown;
  for (let i = messages.length - 1; i >= 0; i--) {
    sum += loadedTokens(messages[i]);
    if (!isGenuineUserMessage(messages[i])) continue;
    if (from !== undefined && sum > tokens) break;
    from = messages[i];
  }
  return from;
}

/** A loaded message in the precheck's units (`estimateTokens`: a compaction summary counts its summary's chars). */
export function loadedTokens(message: unknown): number {
  const m = message as { role?: unknown; summary?: unknown };
  if (m?.role === "compactionSummary" && typeof m.summary === "string") return Math.ceil(m.summary.length / 4);
  return estimateRawTokens(message);
}

/**
 * After a turn on 2026.4.24: when what the host will load exceeds {@link PAYDOWN_TARGET_SHARE} of the prompt budget,
 * a forced compaction of the engine's window, recorded as a compaction entry in the host's transcript (see the module
 * comment). Call it only after the turn's messages are written: before a run, the host's session manager is already
 * open and would append the user's message beside the entry, off the branch it loads.
 */
export async function payDownHostLoad(
  deps: HostLoadDeps,
  settings: AgentSettings,
  input: { identity: SessionIdentity; file: string },
): Promise<HostLoadResult> {
  const { identity, file } = input;
  const state = await deps.sessions.read(identity.agentId, identity.sessionKey);
  const budget = state.lastDebt?.promptBudget ?? settings.budget.fallbackBudgetTokens;
  const targetTokens = Math.floor(budget * PAYDOWN_TARGET_SHARE);
  const messages = loadedMessages(await readJsonlTranscript(file));
  const loaded = messages.reduce<number>((s, m) => s + loadedTokens(m), 0);
  if (loaded <= targetTokens) return { compacted: false, reason: "within_target", loadedTokens: loaded, targetTokens };
  // The newest turns that fit beside the summary the compaction entry carries.
  const keepFrom = newestTurnsWithin(messages, targetTokens - Math.ceil(settings.summary.maxInjectedChars / 4));
  const outcome: CompactOutcome = await compactSession(deps, settings, {
    identity,
    force: true,
    hostTranscript: file,
    ...(keepFrom !== undefined ? { keepFrom: fingerprintMessage(keepFrom) } : {}),
  }).catch((err: unknown): CompactOutcome => {
    // The turn's paydown stands; the host's own precheck asks for this compaction before the next turn if needed.
    deps.logger.warn(`host load of ${file} not compacted: ${errorMessage(err)}`);
    return { ok: false, compacted: false, reason: "error" };
  });
  const firstKeptEntryId = outcome.result?.firstKeptEntryId;
  return {
    compacted: outcome.compacted && firstKeptEntryId !== undefined,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    loadedTokens: loaded,
    targetTokens,
    ...(firstKeptEntryId ? { firstKeptEntryId } : {}),
  };
}
