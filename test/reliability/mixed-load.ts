import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { artifactRoot } from "../../src/state/paths.js";
import { MAX_REMEMBERED_KEYS } from "../../src/state/session-state.js";
import { readSessionState, sessionStatePath } from "../../src/state/session-file.js";
import { sessionRoot } from "../../src/state/paths.js";
import { killWorker, startWorker, type WorkerProcess } from "../support/worker-process.js";
// @ts-expect-error plain .mjs helper shared with the workers
import { readJournal } from "./workers/shared.mjs";

const WORKER = fileURLToPath(new URL("./workers/mixed-worker.mjs", import.meta.url));

/** Options of {@link runMixedLoad}. */
export interface MixedLoadOptions {
  workers: number;
  durationMs: number;
  /** Advancement keys every worker tries on the shared session. */
  sharedKeys: number;
}

/** What a mixed-load run did, for assertions and the report. */
export interface MixedLoadFigures {
  processes: number;
  operations: number;
  counts: Record<string, number>;
  handlesVerified: number;
  committedTurns: number;
  duplicateAnswers: number;
  wallMs: number;
}

interface Report {
  id: number;
  counts: Record<string, number>;
  failures: string[];
  logs: string[];
}

/**
 * Runs `workers` processes of mixed stash / fetch / gc / commitTurn / assemble
 * on one fresh state dir, then checks from outside: every handle any worker
 * reported verifies byte for byte, every advancement key was committed exactly
 * once, and each session's turn count equals its committed keys.
 */
export async function runMixedLoad(options: MixedLoadOptions): Promise<MixedLoadFigures> {
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-mixed-"));
  const stateDir = path.join(tmp, "state");
  const journalDir = path.join(tmp, "journal");
  await fsp.mkdir(journalDir);
  const started = Date.now();
  const workers: WorkerProcess[] = [];
  try {
    for (let id = 0; id < options.workers; id++) {
      workers.push(
        startWorker(WORKER, {
          id,
          stateDir,
          journalDir,
          durationMs: options.durationMs,
          sharedKeys: options.sharedKeys,
          sharedContents: 40,
          seed: 1000 + id,
        }),
      );
    }
    // No deadlock: every worker finishes within its run time plus a bounded grace.
    const grace = options.durationMs + 45_000;
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), grace).unref());
    const outcome = await Promise.race([Promise.all(workers.map((w) => w.exited)), timer]);
    expect(outcome, "workers still running after the grace period (deadlock?)").not.toBe("timeout");
    for (const [i, exit] of (outcome as { code: number | null }[]).entries()) {
      expect(exit.code, `worker ${i} exited badly: ${workers[i]?.stderr()}`).toBe(0);
    }
    const wallMs = Date.now() - started;

    const reports: Report[] = [];
    for (let id = 0; id < options.workers; id++) {
      reports.push(JSON.parse(await fsp.readFile(path.join(journalDir, `report-${id}.json`), "utf8")) as Report);
    }
    for (const r of reports) {
      expect(r.failures, `worker ${r.id} failures`).toEqual([]);
      expect(r.logs, `worker ${r.id} warnings or errors`).toEqual([]);
    }

    // Zero corrupt or lost artifacts: every handle a worker reported reads back verified.
    const store = createArtifactStore({ root: artifactRoot(stateDir, "main") });
    const reported = new Map<string, { bytes: number; sha: string }>();
    for (let id = 0; id < options.workers; id++) {
      for (const line of readJournal(path.join(journalDir, `done-${id}.jsonl`)) as {
        handle: string;
        bytes: number;
        sha: string;
      }[])
        reported.set(line.handle, line);
    }
    for (const [handle, want] of reported) {
      const data = await store.read(handle);
      expect(data.length).toBe(want.bytes);
      expect(createHash("sha256").update(data).digest("hex")).toBe(want.sha);
    }
    const verify = await store.verifyAll();
    expect(verify.corrupt).toEqual([]);
    expect(verify.orphanedMeta).toEqual([]);

    // Zero lost or duplicated turns: each key committed exactly once, and the state agrees.
    const committed = new Map<string, { sessionKey: string; n: number }>();
    let duplicates = 0;
    for (let id = 0; id < options.workers; id++) {
      for (const c of readJournal(path.join(journalDir, `commits-${id}.jsonl`)) as {
        key: string;
        sessionKey: string;
        status: string;
      }[]) {
        const entry = committed.get(c.key) ?? { sessionKey: c.sessionKey, n: 0 };
        if (c.status === "committed") entry.n++;
        else duplicates++;
        committed.set(c.key, entry);
      }
    }
    const perSession = new Map<string, Set<string>>();
    for (const [key, { sessionKey, n }] of committed) {
      expect(n, `commits of ${key}`).toBe(1);
      const set = perSession.get(sessionKey) ?? new Set<string>();
      set.add(key);
      perSession.set(sessionKey, set);
    }
    for (const [sessionKey, keys] of perSession) {
      const state = await readSessionState(sessionStatePath(sessionRoot(stateDir, "main", sessionKey)));
      expect(state.turns, `turns of ${sessionKey}`).toBe(keys.size);
      if (keys.size <= MAX_REMEMBERED_KEYS) expect(new Set(state.committedKeys)).toEqual(keys);
    }

    const counts: Record<string, number> = {};
    for (const r of reports) for (const [k, v] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + v;
    const operations = ["stash", "stashEphemeral", "fetch", "fetchOther", "gc", "commit", "assemble"].reduce(
      (s, k) => s + (counts[k] ?? 0),
      0,
    );
    return {
      processes: options.workers,
      operations,
      counts,
      handlesVerified: reported.size,
      committedTurns: committed.size,
      duplicateAnswers: duplicates,
      wallMs,
    };
  } finally {
    for (const w of workers) await killWorker(w);
    await fsp.rm(tmp, { recursive: true, force: true });
  }
}
