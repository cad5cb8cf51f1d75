/**
 * The host's own compaction record in a 2026.4.x JSONL transcript. 2026.4.24's
 * overflow precheck sizes the session as the host loads it, not the assembled view,
 * so a compaction that only moves the engine's window leaves the precheck where it was
 * and the host resets the session after three tries. Appending a `compaction` entry (the
 * format the host's session manager writes itself: summary, first kept entry, tokens
 * before) makes the host load the summary and the kept turns only. Nothing is deleted:
 * the older entries stay in the file, and the summary names the checkpoint pack.
 */
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import { inspectHostLock, withHostLock } from "../host/session-lock.js";
import { fingerprintMessage } from "../host/messages.js";
import { readJsonlTranscript, type JsonlTranscript } from "./transcript-jsonl.js";

/** What {@link appendJsonlCompaction} wrote. */
export interface JsonlCompaction {
  entryId: string;
  firstKeptEntryId: string;
}

/** Inputs of {@link appendJsonlCompaction}. */
export interface JsonlCompactionInput {
  /** Fingerprint (`fingerprintMessage`) of the first message the host should keep loading. */
  firstKept: string;
  summary: string;
  tokensBefore: number;
  details: Record<string, unknown>;
}

/**
 * Appends a compaction entry after the transcript's last entry, keeping the active
 * branch from the message `firstKept` on. Undefined (nothing written) when that message
 * is not on the active branch, when a compaction already keeps from there or later, or
 * when another process holds the host's session lock (the gateway calling this holds it
 * itself, or none: it waits for compact() to return either way). The file is read under
 * the lock, so the entry's parent is the leaf it is appended after.
 */
export async function appendJsonlCompaction(
  file: string,
  input: JsonlCompactionInput,
): Promise<JsonlCompaction | undefined> {
  const write = async (): Promise<JsonlCompaction | undefined> => {
    const transcript = await readJsonlTranscript(file);
    const planned = compactionLine(transcript, input);
    if (!planned) return undefined;
    // A file cut mid-line (a crashed writer) gets its own line end first, so this entry parses.
    await fsp.appendFile(
      file,
      transcript.text.length > 0 && !transcript.text.endsWith("\n") ? `\n${planned.line}` : planned.line,
    );
    return planned.written;
  };
  const lock = await inspectHostLock(file);
  if (lock?.held && lock.pid !== process.pid) return undefined;
  if (lock?.held) return write();
  return (await withHostLock(file, write))?.value;
}

/**
 * True when {@link appendJsonlCompaction} would write an entry keeping from `firstKept` now: that message is on the
 * active branch, after the start, and later than what the newest compaction keeps. Read without the lock: the append
 * checks again under it.
 */
export async function canAppendJsonlCompaction(file: string, firstKept: string): Promise<boolean> {
  const probe = { firstKept, summary: "", tokensBefore: 0, details: {} };
  return compactionLine(await readJsonlTranscript(file), probe) !== undefined;
}

function compactionLine(
  { branch, ids }: JsonlTranscript,
  input: JsonlCompactionInput,
): { line: string; written: JsonlCompaction } | undefined {
  const leaf = branch.at(-1);
  if (!leaf) return undefined;
  const keptAt = branch.findLastIndex(
    (e) => e.type === "message" && fingerprintMessage(e.fields.message) === input.firstKept,
  );
  if (keptAt <= 0) return undefined;
  const lastCompaction = branch.findLastIndex((e) => e.type === "compaction");
  if (lastCompaction >= 0) {
    const keptBefore = branch.findIndex((e) => e.id === branch[lastCompaction]!.fields.firstKeptEntryId);
    if (keptBefore >= keptAt) return undefined;
  }
  const firstKeptEntryId = branch[keptAt]!.id;
  let entryId = randomBytes(4).toString("hex");
  while (ids.has(entryId)) entryId = randomBytes(4).toString("hex");
  const line = `${JSON.stringify({
    type: "compaction",
    id: entryId,
    parentId: leaf.id,
    timestamp: new Date().toISOString(),
    summary: input.summary,
    firstKeptEntryId,
    tokensBefore: input.tokensBefore,
    details: input.details,
  })}\n`;
  return { line, written: { entryId, firstKeptEntryId } };
}
