import { existsSync, promises as fsp, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { blobsDir, incomingDir, metaDir } from "../../src/artifacts/format/blob-path.js";
import { parseArtifactMeta } from "../../src/artifacts/format/meta.js";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { walkFanout } from "../../src/artifacts/backends/store-io.js";
import { parseConfig } from "../../src/config/parse-config.js";
import { createEngine } from "../../src/engine/create-engine.js";
import { TEMP_PREFIX } from "../../src/fs/atomic-write.js";
import { createLedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import { artifactRoot, sessionRoot } from "../../src/state/paths.js";
import { readSessionState, sessionStatePath } from "../../src/state/session-file.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createCliIo } from "../support/cli-io.js";
import { createMemoryLogger } from "../support/engine-harness.js";
import { killWorker, startWorker, waitForFile } from "../support/worker-process.js";
// @ts-expect-error plain .mjs helpers shared with the workers
import { contentFor, prng, readJournal, turnFor } from "./workers/shared.mjs";

const WRITER = fileURLToPath(new URL("./workers/crash-writer.mjs", import.meta.url));
const ROUNDS = 6;
const WRITERS = 4;

interface Line {
  op: string;
  handle?: string;
  label?: string;
  size?: number;
  key?: string;
  sessionKey?: string;
  status?: string;
  logs?: string[];
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fsp.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}

/** Polls a writer's journal until it has started `count` writes (stash or commit); false on timeout. */
async function waitForWritesStarted(journalFile: string, count: number, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const started = (readJournal(journalFile) as Line[]).filter(
      (l) => l.op === "stash-start" || l.op === "commit-start",
    ).length;
    if (started >= count) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("crash safety: writers SIGKILLed at seeded points", () => {
  it("leaves every indexed handle verifiable, no partial blob, temp files for gc, and commits exactly once", async () => {
    const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-crash-"));
    const stateDir = path.join(tmp, "state");
    const rand = prng(4242) as () => number;
    const journals: string[] = [];
    let kills = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const writers = Array.from({ length: WRITERS }, (_, w) => {
          const tag = `r${round}w${w}`;
          const journalFile = path.join(tmp, `journal-${tag}.jsonl`);
          journals.push(journalFile);
          const marker = path.join(tmp, `ready-${tag}`);
          return {
            marker,
            journalFile,
            worker: startWorker(WRITER, { tag, stateDir, journalFile, marker, seed: round * 10 + w }),
          };
        });
        for (const { marker, worker } of writers) expect(await waitForFile(marker, 30_000), worker.stderr()).toBe(true);
        // Each writer is killed once it has started a seeded number of writes (counted in
        // its journal), not after a wall-clock delay: how far it got does not depend on
        // the machine's speed, and the kill lands as that write begins.
        for (const { worker, journalFile } of writers) {
          const target = 10 + Math.floor(rand() * 30);
          expect(
            await waitForWritesStarted(journalFile, target, 120_000),
            `writer reached ${target} writes\n${worker.stderr()}`,
          ).toBe(true);
          await killWorker(worker, "SIGKILL");
          expect((await worker.exited).signal).toBe("SIGKILL");
          kills++;
        }
      }

      const lines: Line[] = journals.flatMap((f) => readJournal(f) as Line[]);
      const stashStarted = lines.filter((l) => l.op === "stash-start");
      const stashDone = lines.filter((l) => l.op === "stash-done");
      const commitStarted = lines.filter((l) => l.op === "commit-start");
      const commitDone = lines.filter((l) => l.op === "commit-done");
      const writes = stashStarted.length + commitStarted.length;
      // At least the seeded targets (24 writers, 10-39 each), whatever the machine's speed.
      expect(writes).toBeGreaterThanOrEqual(240);

      // Every indexed handle verifies, and no blob under a final name is partial.
      const root = artifactRoot(stateDir, "main");
      const later = createArtifactStore({ root, now: () => Date.now() + 120_000 });
      const verify = await later.verifyAll();
      expect(verify.corrupt).toEqual([]);
      expect(verify.orphanedMeta).toEqual([]);
      for await (const { file, name } of walkFanout(metaDir(root))) {
        if (name.startsWith(TEMP_PREFIX)) continue;
        expect(() => parseArtifactMeta(readFileSync(file, "utf8"), file)).not.toThrow();
      }
      for (const l of stashDone)
        expect((await later.read(l.handle as string)).toString("utf8")).toBe(contentFor(l.label, l.size));
      const done = new Set(stashDone.map((l) => l.handle));
      let inFlightStashes = 0;
      for (const l of stashStarted) {
        if (done.has(l.handle)) continue;
        inFlightStashes++;
        const back = await later.tryRead(l.handle as string);
        if (back) expect(back.toString("utf8")).toBe(contentFor(l.label, l.size));
      }

      // Leftover temp files in the store are swept by gc (older than a minute: the clock is moved on).
      // Blobs are written under incoming/ and linked into place; metas are written beside theirs.
      const storeTemps = async () =>
        [
          ...(await filesUnder(blobsDir(root))),
          ...(await filesUnder(metaDir(root))),
          ...(await filesUnder(incomingDir(root))),
        ].filter((f) => path.basename(f).startsWith(TEMP_PREFIX));
      const tempsBefore = await storeTemps();
      const report = await later.gc({ referenced: new Set(stashStarted.map((l) => l.handle as string)) });
      expect(report.removed).toEqual([]);
      expect(report.staleTempFiles).toBe(tempsBefore.length);
      expect(await storeTemps()).toEqual([]);

      // Commits: finished ones were fresh; in-flight ones are retried with the same key.
      for (const l of commitDone) {
        expect(l.status).toBe("committed");
        expect(l.logs).toEqual([]);
      }
      const mem = createMemoryLogger();
      const services = createLedgerRuntime({ config: parseConfig({ stateDir }), hostLogger: mem.logger });
      const engine = createEngine(services, { agentDir: path.join(stateDir, "host", "agents", "main", "agent") });
      const finished = new Set(commitDone.map((l) => l.key));
      const inFlight = commitStarted.filter((l) => !finished.has(l.key));
      const retried = await Promise.all(
        inFlight.map(async (l) => ({
          ...l,
          status: (
            await engine.commitTurn({
              sessionId: "crash",
              sessionKey: l.sessionKey,
              advancementKey: l.key,
              messages: turnFor(l.key),
            })
          ).status,
        })),
      );
      for (const r of retried) expect(["committed", "duplicate"]).toContain(r.status);
      const expected = new Map<string, Set<string>>();
      for (const l of [...commitDone, ...retried]) {
        if (l.status !== "committed" && !(l.status === "duplicate" && !finished.has(l.key))) continue;
        const set = expected.get(l.sessionKey as string) ?? new Set<string>();
        set.add(l.key as string);
        expected.set(l.sessionKey as string, set);
      }
      // A retry that answers `duplicate` proves the killed commit landed; either way each key counts once.
      const againAll = await Promise.all(
        commitStarted.map((l) =>
          engine.commitTurn({
            sessionId: "crash",
            sessionKey: l.sessionKey,
            advancementKey: l.key,
            messages: turnFor(l.key),
          }),
        ),
      );
      expect(againAll.every((r) => r.status === "duplicate")).toBe(true);
      for (const [sessionKey, keys] of expected) {
        const state = await readSessionState(sessionStatePath(sessionRoot(stateDir, "main", sessionKey)));
        expect(state.turns, sessionKey).toBe(keys.size);
        expect(new Set(state.committedKeys)).toEqual(keys);
        expect(new Set(state.recentTurns.map((t) => t.key)).size).toBe(state.recentTurns.length);
      }
      const sessionsDir = path.join(stateDir, "agents", "main", "sessions");
      const corrupt = (await filesUnder(sessionsDir)).filter((f) => f.includes(".corrupt-"));
      expect(corrupt).toEqual([]);
      expect(mem.lines.filter((l) => l.startsWith("error"))).toEqual([]);
      await engine.dispose();

      // Temp files outside the store (session state, captures) are doctor --fix's to sweep once stale.
      const otherTemps = (await filesUnder(stateDir)).filter((f) => path.basename(f).startsWith(TEMP_PREFIX));
      const past = new Date(Date.now() - 10 * 60_000);
      for (const f of otherTemps) await fsp.utimes(f, past, past);
      const cli = createCliIo({ HOME: path.join(tmp, "home") });
      await runCli(
        ["doctor", "--fix", "--json", "--state-dir", stateDir, "--openclaw-state", path.join(tmp, "host")],
        cli.io,
      );
      const doctorTemps = (
        JSON.parse(cli.stdout()) as { findings: { check: string; fixed?: boolean }[] }
      ).findings.filter((f) => f.check === "temp" && f.fixed);
      expect(doctorTemps).toHaveLength(otherTemps.length);
      expect((await filesUnder(stateDir)).filter((f) => path.basename(f).startsWith(TEMP_PREFIX))).toEqual([]);
      console.info(
        `[reliability] crash: ${kills} kills, ${writes} writes (${stashStarted.length} stashes, ${commitStarted.length} commits), in flight at kill: ${inFlightStashes} stashes, ${inFlight.length} commits (retried: ${retried.filter((r) => r.status === "committed").length} committed, ${retried.filter((r) => r.status === "duplicate").length} duplicate); store temp files swept by gc: ${tempsBefore.length}; temp files outside the store swept by doctor --fix: ${otherTemps.length}; lost: 0`,
      );
      expect(existsSync(stateDir)).toBe(true);
    } finally {
      await fsp.rm(tmp, { recursive: true, force: true });
    }
  }, 240_000);
});
