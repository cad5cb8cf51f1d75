/**
 * Checkpoint packs: the summary record sealed as one JSON artifact at a
 * frontier. A pack holds the record in full (every detailed entry plus the
 * digest of older ones) and names the previous pack, so folding entries out
 * of the sidecar after sealing never loses the full record: the chain of
 * packs has it. No timestamps, so sealing the same state twice dedups.
 */
import { z } from "zod";
import { isHandle } from "../artifacts/index.js";
import { describeValue, LedgerError } from "../errors.js";
import { redactSecrets } from "../results/redact.js";
import { foldSummary } from "./fold-summary.js";
import { renderSummary, type RenderSummaryOptions } from "./render-summary.js";
import { parseSummaryState } from "./sidecar.js";
import type { CheckpointRef, SummaryState } from "./summary-state.js";

/** Schema tag of a checkpoint pack. */
export const CHECKPOINT_SCHEMA = "context-ledger.checkpoint.v1";
/** Checkpoint refs kept in the sidecar; older ones stay reachable through each pack's `previous`. */
export const MAX_CHECKPOINT_REFS = 64;

const packSchema = z.object({
  schema: z.literal(CHECKPOINT_SCHEMA),
  epoch: z.string(),
  frontier: z.object({
    index: z.number().int().min(0),
    fingerprint: z.string().nullable(),
    entryId: z.string().optional(),
  }),
  previous: z.string().refine(isHandle).nullable(),
  artifacts: z.array(z.string().refine(isHandle)),
  rendered: z.string(),
  summary: z.unknown(),
});

/** A parsed checkpoint pack (schema `context-ledger.checkpoint.v1`). */
export interface CheckpointPack {
  schema: typeof CHECKPOINT_SCHEMA;
  /** Reset epoch of the conversation. */
  epoch: string;
  /** Where the assembled view starts after this checkpoint. */
  frontier: { index: number; fingerprint: string | null; entryId?: string };
  /** Handle of the pack sealed before this one (older turns in full), if any. */
  previous: string | null;
  /** Every artifact handle the record and the caller name, sorted. */
  artifacts: string[];
  /** The summary as rendered when sealed (what the view starts with). */
  rendered: string;
  /** The summary record in full, as it was when sealed. */
  summary: SummaryState;
}

/** Options for {@link buildCheckpointPack}. */
export interface BuildCheckpointOptions {
  /** Index of the first message the assembled view keeps after this checkpoint. */
  frontierIndex: number;
  /** Fingerprint of that message. */
  frontierFingerprint: string | null;
  /** The host's transcript entry id at the frontier, when known. */
  frontierEntryId?: string;
  /** Further handles to index (artifacts stashed for messages before the frontier). @default [] */
  artifactHandles?: readonly string[];
  /** Options for the rendered text. @default maxChars 4000 */
  render?: RenderSummaryOptions;
}

/** Builds the pack text for `state` (deterministic JSON). */
export function buildCheckpointPack(state: SummaryState, options: BuildCheckpointOptions): string {
  const handles = new Set<string>();
  for (const h of options.artifactHandles ?? []) if (isHandle(h)) handles.add(h);
  for (const h of state.digest.handles) handles.add(h);
  for (const e of state.entries) {
    for (const h of e.handles) handles.add(h);
    for (const t of e.tools) if (t.handle) handles.add(t.handle);
  }
  const frontier: CheckpointPack["frontier"] = {
    index: Math.max(0, Math.floor(options.frontierIndex)),
    fingerprint: options.frontierFingerprint,
  };
  if (options.frontierEntryId !== undefined) frontier.entryId = options.frontierEntryId;
  const pack: CheckpointPack = {
    schema: CHECKPOINT_SCHEMA,
    epoch: state.epoch,
    frontier,
    previous: state.checkpoints.at(-1)?.handle ?? null,
    artifacts: [...handles].filter((h) => isHandle(h)).sort(),
    rendered: renderSummary(state, options.render),
    summary: state,
  };
  // A pack is shown to operators (`checkpoint show`) and to the model (ledger_fetch): every recorded string is
  // redacted.
  const redact = options.render?.redact ?? redactSecrets;
  return JSON.stringify({ ...pack, summary: mapStrings(state, redact) });
}

/** `value` with every string (not keys) passed through `fn`; iterative, so any nesting is safe. */
function mapStrings<T>(value: T, fn: (s: string) => string): T {
  const root: { v: unknown } = { v: value };
  const stack: Array<{ holder: Record<string, unknown> | unknown[]; key: string | number }> = [
    { holder: root as unknown as Record<string, unknown>, key: "v" },
  ];
  while (stack.length > 0) {
    const { holder, key } = stack.pop()!;
    const v = (holder as Record<string | number, unknown>)[key];
    if (typeof v === "string") (holder as Record<string | number, unknown>)[key] = fn(v);
    else if (Array.isArray(v)) {
      const copy = v.slice();
      (holder as Record<string | number, unknown>)[key] = copy;
      for (let i = 0; i < copy.length; i++) stack.push({ holder: copy, key: i });
    } else if (v !== null && typeof v === "object") {
      const copy = { ...(v as Record<string, unknown>) };
      (holder as Record<string | number, unknown>)[key] = copy;
      for (const k of Object.keys(copy)) stack.push({ holder: copy, key: k });
    }
  }
  return root.v as T;
}

/** Parses and validates a pack; throws `state_corrupt` saying what was wrong. */
export function parseCheckpointPack(text: string): CheckpointPack {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new LedgerError("state_corrupt", `Expected a checkpoint pack to be JSON, got ${describeValue(text)}`, {
      cause: err,
    });
  }
  const result = packSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new LedgerError(
      "state_corrupt",
      `Expected a ${CHECKPOINT_SCHEMA} pack, got ${describeValue(json)} (at \`${issue?.path.join(".") ?? ""}\`: ${issue?.message ?? "invalid"})`,
      { cause: result.error },
    );
  }
  const summary = parseSummaryState(result.data.summary, "the checkpoint pack's summary");
  return { ...result.data, summary } as CheckpointPack;
}

/** {@link parseCheckpointPack}, but `undefined` for anything invalid. */
export function tryParseCheckpointPack(text: string): CheckpointPack | undefined {
  try {
    return parseCheckpointPack(text);
  } catch {
    return undefined;
  }
}

/** Options for {@link sealCheckpoint}. */
export interface SealCheckpointOptions extends BuildCheckpointOptions {
  /** Stores the pack as an artifact (the engine owns the store) and returns its handle. */
  stash: (content: string) => Promise<{ handle: string }>;
  /**
   * Detailed entries kept in the sidecar after sealing; older ones fold into the digest.
   * @default 16
   */
  keepEntries?: number;
}

/** Result of {@link sealCheckpoint}. */
export interface SealedCheckpoint {
  /** The new sidecar state: the checkpoint recorded, older entries folded. */
  state: SummaryState;
  /** Handle of the stashed pack. */
  handle: string;
  /** The pack as stashed. */
  pack: string;
}

/**
 * Seals `state` into a pack, stashes it, records the checkpoint and folds
 * older entries into the digest (they are in the pack in full).
 */
export async function sealCheckpoint(state: SummaryState, options: SealCheckpointOptions): Promise<SealedCheckpoint> {
  const pack = buildCheckpointPack(state, options);
  const { handle } = await options.stash(pack);
  const ref: CheckpointRef = {
    coveredCount: state.coveredCount,
    fingerprint: state.coveredFingerprint,
    handle,
    turns: state.digest.turns + state.entries.length,
  };
  const last = state.checkpoints.at(-1);
  const checkpoints =
    last?.handle === handle ? state.checkpoints : [...state.checkpoints, ref].slice(-MAX_CHECKPOINT_REFS);
  return { state: foldSummary({ ...state, checkpoints }, options.keepEntries ?? 16), handle, pack };
}

/**
 * The summary record sealed in `packText`, for a rollback that reached back
 * past the folded digest (`reconcileSummary`'s `restoreFrom`). Throws
 * `state_corrupt` when the pack does not match the ref.
 */
export function restoreFromCheckpointPack(packText: string, ref: CheckpointRef): SummaryState {
  const pack = parseCheckpointPack(packText);
  const s = pack.summary;
  if (s.coveredCount !== ref.coveredCount || s.coveredFingerprint !== ref.fingerprint) {
    throw new LedgerError(
      "state_corrupt",
      `Expected checkpoint ${ref.handle} to cover ${ref.coveredCount} messages ending at ${describeValue(ref.fingerprint)}, got ${s.coveredCount} ending at ${describeValue(s.coveredFingerprint)}`,
    );
  }
  return { ...s, checkpoints: [...s.checkpoints, ref].slice(-MAX_CHECKPOINT_REFS) };
}
