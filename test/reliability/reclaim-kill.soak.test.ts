/**
 * A reclaim SIGKILLed part-way (after it linked the transcript, before or after the replace) must leave nothing the
 * next reclaim does not sweep: no `<transcript>.reclaim-<pid>-<ms>` link (a full copy of superseded content), and
 * every line of the transcript still in the file or in the stored branches, once.
 */
import { existsSync, promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { isPidAlive } from "../../src/host/session-lock.js";
import { reclaimJsonlBranches } from "../../src/maintenance/jsonl-reclaim.js";
import {
  PACKED_BRANCHES_KIND,
  PLAIN_BRANCHES_KIND,
  readReclaimedLines,
} from "../../src/maintenance/reclaimed-lines.js";
import { prng } from "../support/prng.js";
import { jsonlOf, rewrittenSession } from "../support/rewritten-session.js";
import { useTempDir } from "../support/temp-dir.js";
import { killWorker, startWorker, waitForFile } from "../support/worker-process.js";

const WORKER = fileURLToPath(new URL("./workers/reclaim-worker.mjs", import.meta.url));
const KILLS = 12;
const tmp = useTempDir("reclaim-kill-");

const linesOf = (text: string) => text.split("\n").filter(Boolean);
const linksIn = async (dir: string) => (await fsp.readdir(dir)).filter((n) => n.includes(".reclaim-"));

interface Round {
  file: string;
  sessions: string;
  agentDir: string;
  storeRoot: string;
  leftLink: boolean;
  replaced: boolean;
  killed: boolean;
}

describe("a reclaim killed part-way", () => {
  it("leaves no link of the transcript after the next reclaim, and no line lost", async () => {
    const rand = prng(2222) as () => number;
    const original = jsonlOf(rewrittenSession(16).lines);
    const rounds: Round[] = [];
    // A reclaim that ends before its kill is checked too; rounds go on until KILLS kills landed.
    for (let i = 0; rounds.filter((r) => r.killed).length < KILLS && i < 3 * KILLS; i++) {
      const sessions = path.join(tmp(), `r${i}`, "sessions");
      const agentDir = path.join(tmp(), `r${i}`, "ledger");
      await fsp.mkdir(sessions, { recursive: true });
      const file = path.join(sessions, "s.jsonl");
      await fsp.writeFile(file, original, { mode: 0o600 });
      const marker = path.join(tmp(), `ready-${i}`);
      const storeRoot = path.join(agentDir, "artifacts");
      const worker = startWorker(WORKER, { file, storeRoot, agentDir, marker });
      expect(await waitForFile(marker, 30_000), worker.stderr()).toBe(true);
      // Killed once its link exists, after a seeded delay: some kills land before the replace, some after it.
      const end = Date.now() + 30_000;
      while ((await linksIn(sessions)).length === 0 && !existsSync(`${marker}.done`) && Date.now() < end)
        await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 300)));
      await killWorker(worker, "SIGKILL");
      rounds.push({
        file,
        sessions,
        agentDir,
        storeRoot,
        leftLink: (await linksIn(sessions)).length > 0,
        replaced: (await fsp.stat(file)).size < Buffer.byteLength(original),
        killed: !existsSync(`${marker}.done`),
      });
    }
    const killed = rounds.filter((r) => r.killed);
    expect(killed).toHaveLength(KILLS);
    const left = killed.filter((r) => r.leftLink).length;
    const replaced = killed.filter((r) => r.replaced).length;
    console.log(`[reclaim kill] ${left} of ${KILLS} kills left a link; ${replaced} landed after the replace`);
    expect(rounds.some((r) => r.leftLink)).toBe(true);

    await Promise.all(
      rounds.map(async (r) => {
        // The killed reclaim's host lock names a dead pid: the host takes such a lock over, and so does this test.
        const lock = `${r.file}.lock`;
        if (existsSync(lock)) {
          const { pid } = JSON.parse(await fsp.readFile(lock, "utf8")) as { pid: number };
          expect(isPidAlive(pid)).toBe(false);
          await fsp.rm(lock);
        }
        const store = createArtifactStore({ root: r.storeRoot });
        const next = await reclaimJsonlBranches(r.file, {
          store,
          agentDir: r.agentDir,
          origin: { agentId: "main", sessionKey: "agent:main:killed" },
        });
        // Reclaimed now, or already by the killed one (the file is then small, or within the ratio).
        const done = next.reclaimed || (r.replaced && (next.reason === "small" || next.reason === "within_ratio"));
        expect(done, JSON.stringify(next)).toBe(true);
        expect(await linksIn(r.sessions)).toEqual([]);
        const stored: string[] = [];
        for await (const meta of store.list())
          if (meta.kind === PACKED_BRANCHES_KIND || meta.kind === PLAIN_BRANCHES_KIND)
            stored.push(...linesOf((await readReclaimedLines(store, meta.handle)).toString("utf8")));
        const now = linesOf(await fsp.readFile(r.file, "utf8"));
        expect([...now, ...stored].sort()).toEqual(linesOf(original).sort());
      }),
    );
  }, 180_000);
});
