import { promises as fsp } from "node:fs";

/** One message entry of a JSONL transcript (2026.4.x format). */
export interface TranscriptEntry {
  id: string;
  parentId: string | null;
  message: Record<string, unknown>;
}

/** Any entry of a JSONL transcript (message, compaction, session settings...), as written. */
export interface JsonlEntry {
  id: string;
  parentId: string | null;
  type: unknown;
  fields: Record<string, unknown>;
}

/**
 * A JSONL transcript as read: its text, and its entries on the parent chain of the last one (the active branch), oldest
 * first.
 */
export interface JsonlTranscript {
  text: string;
  branch: JsonlEntry[];
  /** Every entry id in the file (a new entry must not reuse one). */
  ids: ReadonlySet<string>;
}

/**
 * Reads a JSONL transcript and its active branch: the entries on the parent chain
 * of the file's last entry. Unparsable lines are skipped (a half-written last line
 * must not stop maintenance).
 */
export async function readJsonlTranscript(file: string): Promise<JsonlTranscript> {
  const text = await fsp.readFile(file, "utf8");
  const byId = new Map<string, JsonlEntry>();
  let lastId: string | undefined;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A torn or foreign line is not an entry this reader may rewrite; it stays as written.
      continue;
    }
    if (typeof fields.id !== "string") continue;
    byId.set(fields.id, {
      id: fields.id,
      parentId: typeof fields.parentId === "string" ? fields.parentId : null,
      type: fields.type,
      fields,
    });
    lastId = fields.id;
  }
  const branch: JsonlEntry[] = [];
  const seen = new Set<string>();
  for (let id = lastId; id !== undefined && !seen.has(id);) {
    seen.add(id);
    const entry = byId.get(id);
    if (!entry) break;
    branch.push(entry);
    id = entry.parentId ?? undefined;
  }
  return { text, branch: branch.reverse(), ids: new Set(byId.keys()) };
}

/** The message entries of a JSONL transcript's active branch, oldest first (see {@link readJsonlTranscript}). */
export async function readActiveBranch(file: string): Promise<TranscriptEntry[]> {
  const out: TranscriptEntry[] = [];
  for (const e of (await readJsonlTranscript(file)).branch) {
    const message = e.fields.message;
    if (e.type === "message" && message && typeof message === "object")
      out.push({ id: e.id, parentId: e.parentId, message: message as Record<string, unknown> });
  }
  return out;
}
