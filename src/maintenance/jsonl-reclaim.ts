/**
 * A bounded transcript file on the JSONL lines (2026.4.x). The host's safe rewrite, which the paydown's stubs go
 * through, appends a new branch and leaves the old one in the file; the host parses the whole file on every run.
 * A 500-turn long haul on 2026.4.24 reached 32 MB for an active branch of 0.5 MB by turn 380, and the host's
 * `chat.history` lists every message line of the file, so a rewritten message shows twice. When superseded lines
 * hold a message (2026.4.x), or the file outgrows its active branch {@link RECLAIM_RATIO} times, the entries on no
 * branch the host loads move into the artifact store and the file is replaced by what the host loads, under the host's
 * lock, carrying over every line appended meanwhile. The store gets one blob of those lines, packed: every string of
 * 2,048 characters or more in them is stored once, on its own (each rewrite re-appends the same tool output, see
 * `reclaimed-lines.ts`); before anything changes the blob is unpacked and compared with the lines as written, byte
 * for byte.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import type { ArtifactOrigin, ArtifactStore } from "../artifacts/index.js";
import type { AgentSettings } from "../config/schema.js";
import { errorMessage, LedgerError } from "../errors.js";
import { withFileLock } from "../fs/lock.js";
import { replaceKeepingAppends } from "../fs/replace-keeping-appends.js";
import { awaitsAnswer } from "../host/messages.js";
import { inspectHostLock, withHostLock } from "../host/session-lock.js";
import { locateTranscript, type SessionIdentity } from "../host/normalize.js";
import { tryParseJson } from "../json.js";
import type { LedgerServices } from "../runtime/services.js";
import { agentRoot } from "../state/paths.js";
import { recordTranscriptReferences } from "../state/reference-index.js";
import { joinByteLines, splitByteLines } from "../fs/byte-lines.js";
import { readReclaimedLines, stashReclaimedLines } from "./reclaimed-lines.js";
import { reclaimLinkName, sweepReclaimLinks } from "./reclaim-links.js";

/** What bounding a transcript file uses: the store, the root, the log. */
export type TranscriptBoundDeps = Pick<LedgerServices, "root" | "store" | "logger">;

/** The file may hold this many times the bytes of what the host loads before superseded branches leave it. */
export const RECLAIM_RATIO = 3;
/** Files below this size are left alone by the ratio rule (superseded messages go at any size). */
const RECLAIM_MIN_BYTES = 1_048_576;

/** Fields besides `parentId` by which a kept entry names another entry, which then stays too (with its chain). */
const NAMED_ENTRY_FIELDS = ["firstKeptEntryId", "targetId", "fromId"] as const;

/** What {@link reclaimJsonlBranches} did. */
export interface ReclaimResult {
  reclaimed: boolean;
  /** Why nothing was reclaimed. */
  reason?: "small" | "within_ratio" | "turn_in_flight" | "locked" | "file_changing" | "held_open";
  /** With `held_open`: the process that holds the file open for writing. */
  writer?: number;
  bytesBefore: number;
  bytesAfter?: number;
  linesDropped?: number;
  /** The stored blob of the dropped lines (`context-ledger artifact fetch HANDLE --unpack` gives them as written). */
  handle?: string;
}

/** What {@link reclaimJsonlBranches} needs. */
export interface ReclaimDeps {
  store: ArtifactStore;
  /** The agent's state folder: the transcript's citation of the blob is recorded there, so gc keeps it. */
  agentDir: string;
  origin: ArtifactOrigin;
  /**
   * Reclaim when a superseded line is a message, at any size: 2026.4.24's chat history lists every message line of the
   * file. Not on 2026.5.28-2026.7.x, where a file replaced between a run's lock releases ends the next turn ("session
   * file changed while embedded prompt lock was released"). @default false
   */
  messagesAtAnySize?: boolean;
}

/**
 * maintain()'s step after the paydown on the JSONL lines: {@link reclaimJsonlBranches} on the session's file. Undefined
 * where there is nothing to do (maintenance off, no JSONL file); a failure is logged and changes nothing.
 */
export async function boundTranscriptFile(
  deps: TranscriptBoundDeps,
  settings: AgentSettings,
  input: {
    identity: SessionIdentity;
    sessionFile: unknown;
    /** Reclaim superseded messages at any size (2026.4.x, see {@link ReclaimDeps.messagesAtAnySize}). */
    messagesAtAnySize: boolean;
  },
): Promise<ReclaimResult | { reclaimed: false; reason: "error"; error: string } | undefined> {
  const locator = locateTranscript(input.sessionFile);
  if (locator.kind !== "jsonl") return undefined;
  if (!settings.enabled || !settings.maintenance.enabled) {
    // A killed reclaim's link is swept even after the reclaim was switched off (the reclaim sweeps otherwise).
    await sweepReclaimLinks(path.dirname(locator.file)).catch((err: unknown) => {
      deps.logger.warn(`reclaim links beside ${locator.file} not swept: ${errorMessage(err)}`);
    });
    return undefined;
  }
  const { agentId, sessionKey } = input.identity;
  try {
    return await reclaimJsonlBranches(locator.file, {
      store: deps.store(agentId),
      agentDir: agentRoot(deps.root, agentId),
      origin: { agentId, sessionKey },
      messagesAtAnySize: input.messagesAtAnySize,
    });
  } catch (err) {
    deps.logger.warn(`transcript ${locator.file} not reclaimed: ${errorMessage(err)}`);
    return { reclaimed: false, reason: "error", error: errorMessage(err) };
  }
}

interface Line {
  bytes: Buffer;
  id?: string;
  fields?: Record<string, unknown>;
}

/**
 * Moves a JSONL transcript's superseded branches into the store when they hold a message and
 * {@link ReclaimDeps.messagesAtAnySize} (2026.4.24's chat history would show it twice), or when the file holds more
 * than {@link RECLAIM_RATIO} times what the host loads (see the module comment). Leaves the file alone while the user's
 * newest message awaits its answer, or while another process holds the host's session lock. Sweeps the links a killed
 * reclaim left beside it first (see `reclaim-links.ts`).
 */
export async function reclaimJsonlBranches(file: string, deps: ReclaimDeps): Promise<ReclaimResult> {
  await sweepReclaimLinks(path.dirname(file));
  const bytesBefore = (await fsp.stat(file)).size;
  // Below the size rule the file is not even linked: 2026.5.28 takes a new link (a changed inode) for a changed
  // session file and ends the next turn ("session file changed while embedded prompt lock was released").
  if (!deps.messagesAtAnySize && bytesBefore < RECLAIM_MIN_BYTES)
    return { reclaimed: false, reason: "small", bytesBefore };
  const lock = await inspectHostLock(file);
  if (lock?.held && lock.pid !== process.pid) return { reclaimed: false, reason: "locked", bytesBefore };
  // One reclaim at a time per agent, across processes and within one: the host's lock, which 2026.4.24 holds for
  // the whole run, cannot tell two of this process's maintain() calls apart.
  const run = (): Promise<ReclaimResult> =>
    withFileLock(path.join(deps.agentDir, "transcript-reclaim"), () => reclaimUnderLock(file, deps));
  if (lock?.held) return run();
  return (await withHostLock(file, run))?.value ?? { reclaimed: false, reason: "locked", bytesBefore };
}

async function reclaimUnderLock(file: string, deps: ReclaimDeps): Promise<ReclaimResult> {
  // A second name of the file's inode, taken before it is read: lines the host appends meanwhile land in it too.
  const link = reclaimLinkName(file);
  await fsp.link(file, link);
  try {
    const original = await fsp.readFile(link);
    const lines = splitLines(original);
    const keep = keptIds(lines);
    if (!keep) return { reclaimed: false, reason: "turn_in_flight", bytesBefore: original.length };
    const isKept = (l: Line): boolean => l.id === undefined || l.fields?.type === "session" || keep.has(l.id);
    const kept = joinLines(lines.filter(isKept));
    const dropped = lines.filter((l) => !isKept(l));
    // 2026.4.24's chat.history lists every message line of the file, on a branch or not: a superseded message would
    // show twice. Elsewhere superseded lines only cost the host's parse, bounded by the ratio.
    const shownTwice = deps.messagesAtAnySize === true && dropped.some((l) => l.fields?.type === "message");
    const outgrown = original.length >= RECLAIM_MIN_BYTES && original.length > RECLAIM_RATIO * kept.length;
    if (dropped.length === 0 || !(shownTwice || outgrown))
      return { reclaimed: false, reason: "within_ratio", bytesBefore: original.length };
    const blob = joinLines(dropped);
    const { handle, parts } = await stashReclaimedLines(
      deps.store,
      dropped.map((l) => l.bytes),
      deps.origin,
    );
    // Write-ahead: gc keeps what the transcript cites as long as the transcript exists, the blob's parts with it.
    await recordTranscriptReferences(deps.agentDir, file, [handle, ...parts]);
    // Read back after recording: a gc between the stash and the record may have taken a part, and this read sees it.
    const readBack = await readReclaimedLines(deps.store, handle).catch((cause: unknown) => {
      const why = errorMessage(cause);
      throw new LedgerError("artifact_corrupt", `Expected the stored branches ${handle} to read back, got ${why}`, {
        cause,
      });
    });
    if (!readBack.equals(blob))
      throw new LedgerError(
        "artifact_corrupt",
        `Expected the stored branches ${handle} to read back as the ${blob.length} bytes written, got ${readBack.length} bytes that differ`,
      );
    const replaced = await replaceKeepingAppends(file, link, kept, { readBytes: original.length });
    if (!replaced.replaced)
      return {
        reclaimed: false,
        reason: replaced.reason === "held" ? "held_open" : "file_changing",
        bytesBefore: original.length,
        ...(replaced.reason === "held" ? { writer: replaced.writer } : {}),
      };
    return {
      reclaimed: true,
      bytesBefore: original.length,
      bytesAfter: kept.length + replaced.carried,
      linesDropped: dropped.length,
      handle,
    };
  } finally {
    await fsp.rm(link, { force: true });
  }
}

/** The file's lines as written (bytes, without their line ends), each with its entry id and fields when it has one. */
function splitLines(bytes: Buffer): Line[] {
  return splitByteLines(bytes)
    .filter((line) => line.length > 0)
    .map((line) => {
      const fields = tryParseJson(line.toString("utf8"));
      const record = fields && typeof fields === "object" ? (fields as Record<string, unknown>) : undefined;
      return typeof record?.id === "string" ? { bytes: line, id: record.id, fields: record } : { bytes: line };
    });
}

/** Every line ends with a newline, the last one too. */
function joinLines(lines: readonly Line[]): Buffer {
  return joinByteLines([...lines.map((l) => l.bytes), Buffer.alloc(0)]);
}

/**
 * The ids of what the host loads: the parent chain of the file's last entry (the active branch), and every entry a
 * kept one names, with its own chain. Undefined while the branch's newest conversational entry is a user's message
 * with no answer yet (the host is about to run it).
 */
function keptIds(lines: readonly Line[]): Set<string> | undefined {
  const byId = new Map<string, Line>();
  for (const l of lines) if (l.id !== undefined) byId.set(l.id, l);
  const leaf = lines.findLast((l) => l.id !== undefined);
  const keep = new Set<string>();
  const follow = (id: unknown): void => {
    for (let at = typeof id === "string" ? id : undefined; at !== undefined && !keep.has(at);) {
      const entry = byId.get(at);
      if (!entry) return;
      keep.add(at);
      for (const field of NAMED_ENTRY_FIELDS) follow(entry.fields?.[field]);
      const parent = entry.fields?.parentId;
      at = typeof parent === "string" ? parent : undefined;
    }
  };
  follow(leaf?.id);
  const branch: unknown[] = [];
  for (let at = leaf; at;) {
    if (at.fields?.type === "message") branch.push(at.fields.message);
    const parent = at.fields?.parentId;
    at = typeof parent === "string" ? byId.get(parent) : undefined;
  }
  if (awaitsAnswer(branch.reverse())) return undefined;
  return keep;
}
