import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadHostSessionManager } from "../../test/support/host-session-manager.js";
import { jsonlOf, rewrittenSession } from "../../test/support/rewritten-session.js";
import { createArtifactStore } from "../artifacts/index.js";
import { reclaimJsonlBranches } from "./jsonl-reclaim.js";

// In the host project: it loads the 2026.4.24 host's own session loader (pi-coding-agent).
describe("a transcript whose superseded branches were reclaimed, as the 2026.4.24 host loads it", () => {
  it("the same conversation, the same entries on the active branch", async () => {
    const SessionManager = await loadHostSessionManager();
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "cl-jsonl-reclaim-"));
    try {
      const file = path.join(dir, "sess.jsonl");
      const { lines } = rewrittenSession(16);
      await fsp.writeFile(file, jsonlOf(lines), { mode: 0o600 });
      const before = SessionManager.open(file, dir, dir);
      const store = createArtifactStore({ root: path.join(dir, "artifacts") });
      const origin = { agentId: "main", sessionKey: "agent:main:s" };
      const r = await reclaimJsonlBranches(file, { store, agentDir: dir, origin });
      expect(r.reclaimed).toBe(true);
      const after = SessionManager.open(file, dir, dir);
      expect(after.buildSessionContext().messages).toEqual(before.buildSessionContext().messages);
      const onBranch = (m: typeof before) => {
        const byId = new Map(m.getEntries().map((e) => [e.id, e]));
        const out: string[] = [];
        for (let e = m.getEntries().at(-1); e; e = e.parentId ? byId.get(e.parentId) : undefined) out.push(e.id);
        return out;
      };
      expect(onBranch(after)).toEqual(onBranch(before));
      expect(after.getEntries().length).toBeLessThan(before.getEntries().length);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});
