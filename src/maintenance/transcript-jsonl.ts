import { promises as fsp } from "node:fs";

/** One message entry of a JSONL transcript (2026.4.x format). */
export interface TranscriptEntry {
  id: string;
  parentId: string | null;
  message: Record<string, unknown>;
}

/**
 * Reads the active branch of a JSONL transcript: the message entries on the
 * parent chain of the last entry, oldest first. Unparsable lines are skipped
 * (a half-written last line must not stop maintenance).
 */
export async function readActiveBranch(file: string): Promise<TranscriptEntry[]> {
  const text = await fsp.readFile(file, "utf8");
  const byId = new Map<string, { parentId: string | null; type: unknown; message?: unknown }>();
  let lastId: string | undefined;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A torn or foreign line is not an entry this reader may rewrite; it stays as written.
      continue;
    }
    if (typeof entry.id !== "string") continue;
    byId.set(entry.id, { parentId: typeof entry.parentId === "string" ? entry.parentId : null, type: entry.type, message: entry.message });
    lastId = entry.id;
  }
  const branch: TranscriptEntry[] = [];
  const seen = new Set<string>();
  for (let id = lastId; id !== undefined && !seen.has(id); ) {
    seen.add(id);
    const entry = byId.get(id);
    if (!entry) break;
    if (entry.type === "message" && entry.message && typeof entry.message === "object") {
      branch.push({ id, parentId: entry.parentId, message: entry.message as Record<string, unknown> });
    }
    id = entry.parentId ?? undefined;
  }
  return branch.reverse();
}
