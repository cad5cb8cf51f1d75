import { EXEC_RETENTION_NOTE } from "../results/host-copy.js";
import { handlePattern } from "../artifacts/index.js";
import type { AgentSettings } from "../config/schema.js";
import { captureIndexOf, captureSessionOf, type CaptureIndex } from "../capture/capture-index.js";
import { settleCaptures } from "../capture/capture-hook.js";
import { LedgerError } from "../errors.js";
import { awaitsAnswer, blocksOf, LEDGER_MARKER, roleOf, textOf, toolResultIdOf } from "../host/messages.js";
import { locateTranscript, rewriteCapability, type SessionIdentity } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { buildStub } from "../results/stub.js";
import { agentRoot } from "../state/paths.js";
import { recordTranscriptReferences } from "../state/reference-index.js";
import { estimateRawTokens } from "../host/raw-tally.js";
import { readActiveBranch, type TranscriptEntry } from "./transcript-jsonl.js";
import { readSqliteActiveBranch, waitForSqliteProjection, type SqliteTranscriptLocator } from "./transcript-sqlite.js";

/** What paying the transcript down uses: captures, the store, session state, redaction, events. */
export type PaydownDeps = Pick<
  LedgerServices,
  "root" | "store" | "sessions" | "redact" | "events" | "logger" | "state" | "processWide"
>;

/** What maintain() reports to the host (its TranscriptRewriteResult). */
export interface PaydownResult {
  changed: boolean;
  bytesFreed: number;
  rewrittenEntries: number;
  reason?: string;
}

/** Inputs of {@link payDownDebt}. */
export interface PaydownInput {
  identity: SessionIdentity;
  sessionFile: unknown;
  runtimeContext: unknown;
  abortSignal?: AbortSignal;
  /** 2026.8.x onwards: the session's SQLite transcript (the engine reads entry ids there; the host rewrites). */
  sqlite?: SqliteTranscriptLocator;
}

/**
 * What the host loads of a session is kept under this share of its prompt budget where it sizes that load itself
 * (2026.4.24, `host-load.ts`): the rest is room for the system prompt and the new turn.
 */
export const PAYDOWN_TARGET_SHARE = 0.6;

/**
 * How long maintain() waits for 2026.9.x to re-index a session (before reading its branch, and after a rewrite);
 * measured about a second on a quiet machine.
 */
export const PROJECTION_WAIT_MS = 15_000;

const nothing = (reason: string): PaydownResult => ({ changed: false, bytesFreed: 0, rewrittenEntries: 0, reason });

/**
 * Pays maintenance debt down through the host's safe transcript rewrite: oversized tool results are stashed, verified
 * by reading them back, and replaced by handle stubs. A user's messages and the model's answers are the conversation
 * the user reopens: they are never rewritten (where the host sizes what it loads, `host-load.ts` records a compaction
 * instead). Bounded per call; honours `abortSignal`.
 */
export async function payDownDebt(
  deps: PaydownDeps,
  settings: AgentSettings,
  input: PaydownInput,
): Promise<PaydownResult> {
  if (!settings.enabled || !settings.maintenance.enabled) return nothing("disabled");
  const rewrite = rewriteCapability(input.runtimeContext);
  if (!rewrite) return nothing("rewrite_unavailable");
  const locator = locateTranscript(input.sessionFile);
  // 2026.8.x onwards keep transcripts in SQLite and pass no entry ids: they are read from the store's active branch.
  const sqlite = locator.kind === "jsonl" ? undefined : input.sqlite;
  // That branch is the host's projection: while it is being rebuilt its entry ids may be stale.
  if (sqlite && (await waitForSqliteProjection(sqlite, waitOptions(input))).current === false)
    return nothing("projection_rebuilding");
  const entries =
    locator.kind === "jsonl"
      ? await readActiveBranch(locator.file)
      : sqlite
        ? await readSqliteActiveBranch(sqlite)
        : undefined;
  if (!entries) return nothing("entry_ids_unavailable");
  const { identity } = input;
  const state = await deps.sessions.read(identity.agentId, identity.sessionKey);
  // A rewrite before the turn the host has just stored races its admission of that message: an adopted session's
  // first rewrite (the whole raw history) on every line, and on 2026.9.x any rewrite at all (the host then drops the
  // turn: "Persisted user turn changed before replay admission"). The maintain() after the turn pays it down instead.
  if ((state.turns === 0 || sqlite) && awaitsAnswer(entries.map((e) => e.message))) return nothing("turn_in_flight");
  // A stub written into the transcript is permanent: it must cite the captured original, not the host's cut copy.
  await settleCaptures(deps, identity);
  let raw = entries.reduce((sum, e) => sum + estimateRawTokens(e.message), 0);
  // Oversized tool results always go: the prompt shows them as stubs anyway.
  const candidates = pickToolResults(entries, settings);
  const store = deps.store(identity.agentId);
  const captures = captureIndexOf(deps, identity.agentId);
  const replacements: { entryId: string; message: Record<string, unknown> }[] = [];
  let freedChars = 0;
  for (const entry of candidates) {
    if (replacements.length >= settings.maintenance.maxEntriesPerCall) break;
    if (input.abortSignal?.aborted)
      throw new LedgerError("aborted", "Expected maintain() to run to completion, got an abort signal");
    const stub = await stubEntry(entry, {
      settings,
      store,
      captures,
      identity,
      redact: (t) => deps.redact(settings, t),
    });
    if (!stub) continue;
    freedChars += textOf(entry.message).length - textOf(stub).length;
    replacements.push({ entryId: entry.id, message: stub });
    raw -= estimateRawTokens(entry.message) - estimateRawTokens(stub);
  }
  if (replacements.length === 0) return nothing("nothing_reducible");
  // Write-ahead: gc must know the transcript cites these handles before the host rewrites it.
  const transcriptFile = locator.kind === "jsonl" ? locator.file : (sqlite?.file ?? "");
  await recordTranscriptReferences(
    agentRoot(deps.root, identity.agentId),
    transcriptFile,
    replacements.flatMap((r) => [...JSON.stringify(r.message).matchAll(handlePattern())].map((m) => m[0])),
  );
  const result = (await rewrite({ replacements })) as Partial<PaydownResult> | undefined;
  const out: PaydownResult = {
    changed: result?.changed === true,
    bytesFreed: typeof result?.bytesFreed === "number" ? result.bytesFreed : 0,
    rewrittenEntries: typeof result?.rewrittenEntries === "number" ? result.rewrittenEntries : 0,
    ...(result?.reason ? { reason: String(result.reason) } : {}),
  };
  // The next turn must not start while the host re-indexes what it has just rewritten (see waitForSqliteProjection).
  const settled = out.changed && sqlite ? await waitForSqliteProjection(sqlite, waitOptions(input)) : undefined;
  if (out.changed) {
    // The raw tally no longer matches the transcript: recount (by chars, cheap) at the next assemble.
    deps.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => {
      s.raw = { count: 0, lastFingerprint: null, tokens: 0, reducibleChars: 0 };
    });
  }
  void deps.events.write({
    op: "paydown",
    agentId: identity.agentId,
    sessionKey: identity.sessionKey,
    planned: replacements.length,
    freedChars,
    rawAfter: raw,
    ...out,
    ...(settled ? { projectionCurrent: settled.current ?? null, projectionWaitMs: settled.waitedMs } : {}),
  });
  return out;
}

function waitOptions(input: PaydownInput): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs: PROJECTION_WAIT_MS, ...(input.abortSignal ? { signal: input.abortSignal } : {}) };
}

/** The tool results with a text (or, on 2026.4.24, an `exec` output in `details.aggregated`) over the size rule. */
function pickToolResults(entries: TranscriptEntry[], settings: AgentSettings): TranscriptEntry[] {
  const min = settings.maintenance.minEntryChars;
  return entries.filter((entry) => {
    if (roleOf(entry.message) !== "toolResult") return false;
    const big = blocksOf(entry.message).some(
      (b) => typeof b.text === "string" && b.text.length > min && !b.text.startsWith(LEDGER_MARKER),
    );
    const aggregated = (entry.message.details as Record<string, unknown> | undefined)?.aggregated;
    return big || (typeof aggregated === "string" && aggregated.length > min);
  });
}

/** True when a block's text is the host's copy of `output` (its head, behind exec's retention note if any). */
function showsOutput(text: string, output: string): boolean {
  const body = text.startsWith(EXEC_RETENTION_NOTE) ? text.slice(EXEC_RETENTION_NOTE.length) : text;
  if (output.length < body.length) return false;
  const head = body.slice(0, Math.min(1_024, Math.ceil(body.length / 2)));
  return head.length > 0 && output.startsWith(head);
}

/** What stubbing a transcript entry needs: the agent's settings, its store and captures, the session. */
interface StubEntryContext {
  settings: AgentSettings;
  store: ReturnType<LedgerServices["store"]>;
  captures: CaptureIndex;
  identity: SessionIdentity;
  redact: (text: string) => string;
}

async function stubEntry(
  entry: TranscriptEntry,
  { settings, store, captures, identity, redact }: StubEntryContext,
): Promise<Record<string, unknown> | undefined> {
  const message = entry.message;
  const role = roleOf(message);
  // The conversation (what the user wrote, what the model answered) is never rewritten; tool outputs are material.
  if (role !== "toolResult") return undefined;
  const toolName = String(message.toolName ?? "unknown");
  const callId = toolResultIdOf(message);
  const details = message.details as Record<string, unknown> | undefined;
  const origin = {
    toolName,
    ...(callId ? { toolCallId: callId } : {}),
    agentId: identity.agentId,
    sessionKey: identity.sessionKey,
  };
  const blocks = blocksOf(message).map((block) => ({ ...block }));
  let changed = false;
  for (const [i, block] of blocks.entries()) {
    if (typeof block.text !== "string" || block.text.startsWith(LEDGER_MARKER)) continue;
    // details.aggregated is the whole output of the one block that shows it (2026.4.24 exec); another block of the
    // same result (a note, a second text) keeps its own text.
    const aggregated =
      role === "toolResult" && typeof details?.aggregated === "string" ? details.aggregated : undefined;
    const full = aggregated !== undefined && showsOutput(block.text, aggregated) ? aggregated : block.text;
    if (full.length <= settings.maintenance.minEntryChars) continue;
    const captured = callId
      ? captures.resolve({ hostId: callId, hostText: block.text, session: captureSessionOf(identity) })
      : undefined;
    const linked = captured && captured.chars >= full.length ? captured : undefined;
    const { handle, meta } = linked
      ? { handle: linked.handle, meta: await store.readMeta(linked.handle) }
      : await store.stash(full, { kind: "tool-output", origin });
    // Verified on read: the original must come back byte for byte before the transcript loses it.
    const stored = await store.read(handle);
    // The stub states what its handle holds (the capture's size, not the host copy's) and is summarised from it.
    const text = linked ? stored.toString("utf8") : full;
    const coverage = linked
      ? { chars: linked.chars, lines: linked.lines, ...(linked.partial ? { partial: linked.partial } : {}) }
      : undefined;
    blocks[i] = {
      type: "text",
      text: buildStub({
        handle,
        text,
        meta,
        previewChars: settings.offload.previewChars,
        label: toolName,
        ...(coverage ? { coverage } : {}),
        redact,
        offRamp: true,
      }),
    };
    changed = true;
  }
  if (!changed) return undefined;
  const stubbed: Record<string, unknown> = { ...message, content: blocks };
  if (details && typeof details === "object") {
    const { aggregated: _aggregated, ...rest } = details;
    stubbed.details = rest;
  }
  return stubbed;
}
