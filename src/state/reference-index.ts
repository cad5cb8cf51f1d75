import { isNotFound } from "../errors.js";
import { tryParseJson } from "../json.js";
import { promises as fsp } from "node:fs";
import path from "node:path";

/** File in an agent's folder listing, per host transcript, the handles the ledger wrote into it. */
export const REFERENCE_INDEX_FILE = "references.jsonl";

/** One record of the reference index. */
export interface ReferenceRecord {
  /** What cites the handles: a host transcript rewritten by paydown or `session clean`. */
  source: "transcript";
  /** Absolute path of the transcript. */
  path: string;
  handles: string[];
  at: string;
}

/**
 * Records, durably and BEFORE the transcript changes, that `transcript` will
 * cite `handles` (write-ahead: a rewrite that then fails leaves an extra
 * reference, never a missing one). `artifact gc` keeps every handle of a
 * transcript that still exists and re-scans it as a check.
 */
export async function recordTranscriptReferences(
  agentDir: string,
  transcript: string,
  handles: Iterable<string>,
): Promise<void> {
  const list = [...new Set(handles)].sort();
  if (list.length === 0) return;
  const record: ReferenceRecord = {
    source: "transcript",
    path: path.resolve(transcript),
    handles: list,
    at: new Date().toISOString(),
  };
  await fsp.mkdir(agentDir, { recursive: true, mode: 0o700 });
  const handle = await fsp.open(path.join(agentDir, REFERENCE_INDEX_FILE), "a", 0o600);
  try {
    await handle.appendFile(`${JSON.stringify(record)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The records of an agent's reference index (a torn last line is skipped); none when the file does not exist. */
export async function readReferenceIndex(agentDir: string): Promise<ReferenceRecord[]> {
  let text: string;
  try {
    text = await fsp.readFile(path.join(agentDir, REFERENCE_INDEX_FILE), "utf8");
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  const out: ReferenceRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    // A line torn by a crash mid-append parses as nothing: the rewrite it announced did not happen either.
    const r = tryParseJson(line) as Partial<ReferenceRecord> | null | undefined;
    if (r?.source === "transcript" && typeof r.path === "string" && Array.isArray(r.handles))
      out.push(r as ReferenceRecord);
  }
  return out;
}
