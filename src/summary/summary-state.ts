/**
 * The session summary sidecar's record: what left the assembled window, turn
 * by turn, plus a condensed digest of turns already sealed into checkpoint
 * packs and the list of those packs. Plain JSON, validated on every read.
 */
import { z } from "zod";
import { fingerprintMessage } from "../host/messages.js";

/** Schema tag of the summary sidecar record. */
export const SUMMARY_SCHEMA = "context-ledger.summary.v1";

/** Bounds that keep one entry (and so the sidecar) small whatever a turn holds. */
export const ENTRY_LIMITS = {
  /** Chars of the user request / assistant answer kept. */
  textChars: 240,
  /** Chars of one decision, fact or error line. */
  lineChars: 200,
  /** Chars of a tool call's key arguments. */
  argsChars: 200,
  decisions: 6,
  facts: 10,
  tools: 24,
  files: 24,
  errors: 8,
  handles: 16,
} as const;

/** Bounds of the digest of folded (sealed) turns; each list keeps its first items. */
export const DIGEST_LIMITS = {
  requests: 32,
  decisions: 48,
  facts: 64,
  files: 96,
  errors: 48,
  handles: 64,
} as const;

const str = z.string();
const list = z.array(z.string());

const toolRecordSchema = z.object({
  id: str.optional(),
  name: str,
  args: str.optional(),
  outcome: z.enum(["ok", "error", "pending"]),
  exitCode: z.number().int().optional(),
  handle: str.optional(),
  error: str.optional(),
});

const entrySchema = z.object({
  from: z.number().int().min(0),
  to: z.number().int().min(0),
  endFingerprint: str,
  /** The turn's number in the conversation (its user message's), when known. */
  turn: z.number().int().min(1).optional(),
  user: str.optional(),
  assistant: str.optional(),
  decisions: list,
  facts: list,
  tools: z.array(toolRecordSchema),
  toolsOmitted: z.number().int().min(0),
  files: list,
  errors: list,
  handles: list,
});

const digestSchema = z.object({
  turns: z.number().int().min(0),
  to: z.number().int().min(0),
  endFingerprint: str.nullable(),
  toolCalls: z.number().int().min(0),
  failedCalls: z.number().int().min(0),
  toolNames: z.record(str, z.number().int().min(0)),
  requests: list,
  decisions: list,
  facts: list,
  files: list,
  errors: list,
  handles: list,
  omitted: z.number().int().min(0),
});

const checkpointRefSchema = z.object({
  coveredCount: z.number().int().min(0),
  fingerprint: str.nullable(),
  handle: str,
  turns: z.number().int().min(0),
});

/** zod schema of {@link SummaryState}, used by the sidecar and checkpoint readers. */
export const summaryStateSchema = z.object({
  schema: z.literal(SUMMARY_SCHEMA),
  epoch: str,
  coveredCount: z.number().int().min(0),
  coveredFingerprint: str.nullable(),
  /**
   * Fingerprint of the first message after the covered range, when known: a host that drops
   * the transcript's front exactly there (2026.9.6's byte-capped tail) still continues this record.
   */
  nextFingerprint: str.nullable().optional(),
  digest: digestSchema,
  entries: z.array(entrySchema),
  checkpoints: z.array(checkpointRefSchema),
  /** The conversation's user messages, whole, oldest first (see `user-turns.ts`). */
  users: z.array(z.object({ fp: str, text: str, at: z.number().optional() })).optional(),
});

/** One tool call of a turn and how it ended. */
export type ToolRecord = z.infer<typeof toolRecordSchema>;

/**
 * One turn (a genuine user message and everything up to the next one) of the
 * summarized range `[from, to)`. Entries are contiguous: each starts where the
 * previous ended; skipped messages (host internals, our own blocks) still count.
 */
export type SummaryEntry = z.infer<typeof entrySchema>;

/**
 * Condensed facts of the turns folded out of `entries` after they were sealed
 * into a checkpoint pack (the pack keeps them in full). Covers `[0, to)`.
 */
export type SummaryDigest = z.infer<typeof digestSchema>;

/** A sealed checkpoint pack: the summary as it was at `coveredCount`. */
export type CheckpointRef = z.infer<typeof checkpointRefSchema>;

/** The summary sidecar record (schema `context-ledger.summary.v1`). */
export type SummaryState = z.infer<typeof summaryStateSchema>;

/** An empty digest (nothing folded). */
export function createEmptyDigest(): SummaryDigest {
  return {
    turns: 0,
    to: 0,
    endFingerprint: null,
    toolCalls: 0,
    failedCalls: 0,
    toolNames: {},
    requests: [],
    decisions: [],
    facts: [],
    files: [],
    errors: [],
    handles: [],
    omitted: 0,
  };
}

/** An empty summary for the conversation identified by `epoch` (the reset epoch). */
export function createSummaryState(epoch: string): SummaryState {
  return {
    schema: SUMMARY_SCHEMA,
    epoch,
    coveredCount: 0,
    coveredFingerprint: null,
    digest: createEmptyDigest(),
    entries: [],
    checkpoints: [],
  };
}

/**
 * Short stable hash of a message: role plus canonical content; tool results
 * by role, call id and tool name only, so a result rewritten into a handle
 * stub fingerprints the same. Same function as the planner's anchor.
 */
export function messageFingerprint(message: unknown): string {
  return fingerprintMessage(message);
}
