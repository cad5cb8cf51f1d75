import { readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { agentRoot, encodeSegment } from "../state/paths.js";

/** Where the full original of one tool call's output lives. */
export interface CaptureRecord {
  schema: "context-ledger.capture.v1";
  toolCallId: string;
  toolName: string;
  handle: string;
  /** Chars of the full original. */
  chars: number;
  /** How it was captured: `middleware`, `spill-file`, `aggregated`, `result-text`. */
  source: string;
}

/**
 * Per-agent index from tool call id to the handle of the full original output,
 * so a result the host truncated still points at every byte. Lookups are
 * synchronous (assembly stays synchronous per message) and memoised.
 */
export interface CaptureIndex {
  /** The record for a call id, if one was captured. */
  lookup(toolCallId: string): CaptureRecord | undefined;
  /** Persists a record (atomic; last writer wins, records for one id are equivalent). */
  record(rec: Omit<CaptureRecord, "schema">): Promise<void>;
}

/** Opens the capture index of one agent under the ledger root. */
export function createCaptureIndex(root: string, agentId: string): CaptureIndex {
  const dir = path.join(agentRoot(root, agentId), "captures");
  const memo = new Map<string, CaptureRecord | null>();
  const fileOf = (id: string) => path.join(dir, `${encodeSegment(id)}.json`);
  return {
    lookup(toolCallId) {
      const hit = memo.get(toolCallId);
      if (hit !== undefined) return hit ?? undefined;
      let rec: CaptureRecord | null = null;
      try {
        const parsed = JSON.parse(readFileSync(fileOf(toolCallId), "utf8")) as CaptureRecord;
        if (parsed.schema === "context-ledger.capture.v1" && parsed.toolCallId === toolCallId) rec = parsed;
      } catch {
        rec = null;
      }
      // Misses are not memoised: the capture may land later in this process.
      if (rec) memo.set(toolCallId, rec);
      return rec ?? undefined;
    },
    async record(rec) {
      const full: CaptureRecord = { schema: "context-ledger.capture.v1", ...rec };
      memo.set(rec.toolCallId, full);
      await writeFileAtomic(fileOf(rec.toolCallId), `${JSON.stringify(full)}\n`);
    },
  };
}
