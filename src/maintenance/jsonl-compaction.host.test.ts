import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bloatedSession } from "../../test/cli/cli-fixtures.js";
import { loadHostSessionManager } from "../../test/support/host-session-manager.js";
import { fingerprintMessage } from "../host/messages.js";
import { appendJsonlCompaction } from "./jsonl-compaction.js";

// In the host project: it loads the 2026.4.24 host's own session loader (pi-coding-agent).
describe("a compaction recorded by the engine, as the 2026.4.24 host loads the session", () => {
  it("the host loads the summary first, then the kept turns; the file keeps every earlier entry", async () => {
    const SessionManager = await loadHostSessionManager();
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "cl-jsonl-compaction-"));
    try {
      const session = bloatedSession({ turns: 6, outputChars: 2_000, answerChars: 1_000 });
      const file = path.join(dir, `${session.sessionId}.jsonl`);
      await fsp.writeFile(file, session.text, { mode: 0o600 });
      const before = SessionManager.open(file, dir, dir);
      const all = before.buildSessionContext().messages;
      expect(all).toHaveLength(24);
      // Keep from turn 4's user message (index 16: four messages a turn).
      const written = await appendJsonlCompaction(file, {
        firstKept: fingerprintMessage(all[16]),
        summary: "[context-ledger summary] turns 0-3 ledger:v1:sha256:" + "a".repeat(64),
        tokensBefore: 5_000,
        details: { engine: "context-ledger" },
      });
      expect(written).toBeDefined();

      const after = SessionManager.open(file, dir, dir);
      const loaded = after.buildSessionContext().messages;
      expect(loaded.map((m) => m.role)).toEqual(["compactionSummary", ...all.slice(16).map((m) => m.role)]);
      expect(loaded[0]!.summary).toContain("[context-ledger summary]");
      expect(loaded.slice(1)).toEqual(all.slice(16));
      expect(after.getEntries().map((e) => e.id)).toEqual([...before.getEntries().map((e) => e.id), written!.entryId]);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});
