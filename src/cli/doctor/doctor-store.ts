import { promises as fsp } from "node:fs";
import path from "node:path";
import { STALE_TEMP_MS } from "../../artifacts/index.js";
import { DIR_MODE, FILE_MODE, TEMP_PREFIX } from "../../fs/atomic-write.js";
import type { ArtifactStore } from "../../artifacts/index.js";
import type { LedgerConfig } from "../../config/schema.js";
import type { DoctorFinding } from "./doctor-types.js";
import { listLedgerAgents, listLedgerSessions } from "../core/ledger-scan.js";
import type { Progress } from "../core/progress.js";
import { readAgentStore } from "../core/agent-store.js";

/** Options for the store checks. */
export interface StoreCheckOptions {
  root: string;
  fix: boolean;
  progress: Progress;
  /** Program name for the commands findings suggest. @default "context-ledger" */
  prog?: string;
  /** Clock in epoch ms. @default Date.now */
  now?: () => number;
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, "0");

/**
 * Walks the whole ledger root without following symlinks: files looser than
 * 0600, folders looser than 0700, symlinks, and temp files (stale after a
 * minute). With `fix`: chmod, and stale temp files removed.
 */
export async function checkPermissionsAndTemp(options: StoreCheckOptions): Promise<DoctorFinding[]> {
  const out: DoctorFinding[] = [];
  const now = (options.now ?? Date.now)();
  let loose = 0;
  let temps = 0;
  const visit = async (p: string): Promise<void> => {
    const st = await fsp.lstat(p).catch(() => undefined);
    if (!st) return;
    if (st.isSymbolicLink()) {
      out.push({
        check: "permissions",
        level: "warn",
        message: "symlink inside the ledger state (never followed; remove it if you did not put it there)",
        path: p,
      });
      return;
    }
    // proper-lockfile's lock folders are empty and live only while a lock is held: not state.
    if (st.isDirectory() && p.endsWith(".lock")) return;
    const want = st.isDirectory() ? DIR_MODE : FILE_MODE;
    if ((st.mode & 0o077) !== 0) {
      loose++;
      const f: DoctorFinding = {
        check: "permissions",
        level: "error",
        message: `${st.isDirectory() ? "folder" : "file"} mode ${octal(st.mode)} is looser than ${octal(want)}`,
        path: p,
      };
      if (options.fix) {
        await fsp.chmod(p, (st.mode & 0o700) | (st.isDirectory() ? DIR_MODE : 0));
        Object.assign(f, {
          fixed: true,
          message: `${f.message}; fixed: chmod ${octal((st.mode & 0o700) | (st.isDirectory() ? DIR_MODE : 0))}`,
        });
      }
      out.push(f);
    }
    if (st.isFile() && path.basename(p).startsWith(TEMP_PREFIX)) {
      temps++;
      const age = now - st.mtimeMs;
      if (age <= STALE_TEMP_MS)
        out.push({
          check: "temp",
          level: "info",
          message: "temp file of a write in flight (younger than a minute), left alone",
          path: p,
        });
      else {
        const f: DoctorFinding = {
          check: "temp",
          level: "warn",
          message: `stale temp file (${Math.round(age / 1000)} s old) left by an interrupted write`,
          path: p,
        };
        if (options.fix) {
          await fsp.rm(p, { force: true });
          Object.assign(f, { fixed: true, message: `${f.message}; fixed: removed` });
        }
        out.push(f);
      }
    }
    if (st.isDirectory()) {
      for (const name of (await fsp.readdir(p).catch(() => [] as string[])).sort()) await visit(path.join(p, name));
    }
  };
  await visit(options.root);
  if (loose === 0)
    out.push({ check: "permissions", level: "ok", message: "no file looser than 0600, no folder looser than 0700" });
  if (temps === 0) out.push({ check: "temp", level: "ok", message: "no leftover temp files" });
  return out;
}

/**
 * Verifies every artifact of every agent (hash check), and reports orphaned
 * meta (blob gone: removed with `fix`), orphaned blobs (still served) and
 * unreadable session states.
 */
export async function checkArtifactsAndState(
  options: StoreCheckOptions & { config: LedgerConfig; env: NodeJS.ProcessEnv },
): Promise<DoctorFinding[]> {
  const out: DoctorFinding[] = [];
  for (const agentId of await listLedgerAgents(options.root)) {
    const opening = { config: options.config, ledgerRoot: options.root, agentId, env: options.env };
    out.push(...(await readAgentStore(opening, (store) => checkAgentStore(options, agentId, store))));
  }
  return out;
}

/** The checks of {@link checkArtifactsAndState} for one agent's store. */
async function checkAgentStore(
  options: StoreCheckOptions,
  agentId: string,
  store: ArtifactStore,
): Promise<DoctorFinding[]> {
  const out: DoctorFinding[] = [];
  const report = await store.verifyAll({
    onProgress: (p) => options.progress.update(`verifying ${agentId}`, p.done, p.total),
  });
  options.progress.end();
  for (const c of report.corrupt) {
    out.push({
      check: "artifacts",
      level: "error",
      corrupt: true,
      message: `${agentId}: ${c.handle} fails verification (${c.reason}); it is never served. Not repaired automatically: look at it with \`${options.prog ?? "context-ledger"} artifact peek ${c.handle} --unverified --agent ${agentId}\`, then remove it with \`${options.prog ?? "context-ledger"} artifact rm ${c.handle} --agent ${agentId}\``,
      path: store.locate(c.handle).blob,
    });
  }
  for (const handle of report.orphanedMeta) {
    const { meta } = store.locate(handle);
    const f: DoctorFinding = {
      check: "orphans",
      level: "warn",
      message: `${agentId}: metadata of ${handle} without its blob`,
      path: meta,
    };
    // Stash writes the blob before the meta, so a meta without blob is never a write in flight; recheck anyway.
    if (options.fix && !(await store.has(handle))) {
      await store.remove(handle);
      Object.assign(f, { fixed: true, message: `${f.message}; fixed: metadata removed` });
    }
    out.push(f);
  }
  for (const handle of report.orphanedBlobs) {
    out.push({
      check: "orphans",
      level: "info",
      message: `${agentId}: blob ${handle} has no metadata (still verified and served; gc ages it by mtime)`,
      path: store.locate(handle).blob,
    });
  }
  const summary: DoctorFinding = {
    check: "artifacts",
    level: report.corrupt.length ? "error" : "ok",
    message: `${agentId}: ${report.ok.length} of ${report.ok.length + report.corrupt.length} artifacts verified`,
  };
  if (report.corrupt.length) summary.corrupt = true;
  out.push(summary);
  for (const s of await listLedgerSessions(options.root, agentId)) {
    if (s.error)
      out.push({
        check: "state",
        level: "error",
        corrupt: true,
        message: `${agentId}/${s.sessionKey}: ${s.error}`,
        path: s.dir,
      });
  }
  return out;
}
