import { promises as fsp } from "node:fs";
import path from "node:path";
import { type ArtifactStore, handleForBytes } from "../../../artifacts/index.js";
import { errorMessage, isLedgerError, LedgerError } from "../../../errors.js";
import { replaceKeepingAppends } from "../../../fs/replace-keeping-appends.js";
import type { AgentSettings } from "../../../config/schema.js";
import { detectFormat } from "../../../results/detect-format.js";
import { recordTranscriptReferences } from "../../../state/reference-index.js";
import { planClean, type CleanPlan, type PlanCleanOptions, type Stubber } from "./clean-jsonl.js";
import { inspectHostLock, withHostLock, type HostLockInfo } from "../../../host/session-lock.js";
import { findWriters } from "../../../fs/file-writers.js";
import { cliStub } from "./stub-text.js";

/** Outcome of cleaning one session file: the plan's figures (without the new text) plus what happened. */
export interface CleanFileResult extends Omit<CleanPlan, "text" | "bytes" | "invalidLines"> {
  file: string;
  status: "planned" | "cleaned" | "unchanged" | "refused" | "failed";
  /** Why it was refused or failed. */
  reason?: string;
  /** Exit-code class of a failure. */
  failure?: "corrupt" | "other";
  /** Lines that were not JSON (kept verbatim); absent when the file was not read. */
  invalidLines?: number;
  /** Path of the backup of the original file. */
  backup?: string;
  /**
   * Bytes of lines carried after lines appended later, by a writer that ignores the session lock (see
   * `replaceKeepingAppends`); absent when every carried line kept its place.
   */
  outOfOrder?: number;
}

/** Options for {@link cleanSessionFile}. */
export interface CleanFileOptions extends PlanCleanOptions {
  file: string;
  agentId: string;
  store: ArtifactStore;
  dryRun: boolean;
  /**
   * Clean past a host lock that names no process. Never past a live holder (a lock naming a running pid, or a process
   * holding the file open for writing): its next line would be lost. @default false
   */
  force?: boolean;
  /** The agent's settings: stub preview size and redaction rules. */
  settings: Pick<AgentSettings, "offload" | "redaction">;
  /** Clock for the backup name. @default Date.now */
  now?: () => number;
}

/**
 * Cleans one JSONL session losslessly: each payload is stashed and read back
 * byte-exact before its stub is written, the original is kept as
 * `<file>.bak-<timestamp>`, and the file is replaced atomically while holding
 * the host's own session lock. A session held by a live process (the host's
 * lock naming a running pid, or a process holding the file open for writing)
 * is refused, `force` or not, naming that process.
 */
export async function cleanSessionFile(options: CleanFileOptions): Promise<CleanFileResult> {
  const { file } = options;
  const empty: CleanFileResult = {
    file,
    status: "unchanged",
    entries: 0,
    rewrittenEntries: 0,
    payloads: [],
    bytesBefore: 0,
    bytesAfter: 0,
    bytesFreed: 0,
  };
  const lock = await inspectHostLock(file);
  const holder = await liveHolder(file, lock);
  if (holder && !options.dryRun && (holder.pid !== null || !options.force))
    return { ...empty, status: "refused", reason: holder.refusal };
  try {
    if (options.dryRun) {
      const stub: Stubber = async (payload, info) => {
        const handle = handleForBytes(payload);
        return { handle, stub: cliStub(handle, payload, info, options.settings) };
      };
      const plan = await planClean(await fsp.readFile(file), stub, options);
      const note = holder ? { reason: `${holder.refusal}: a real clean is refused` } : {};
      return { ...empty, ...withoutText(plan), ...note, status: plan.rewrittenEntries > 0 ? "planned" : "unchanged" };
    }
    const run = async (): Promise<CleanFileResult> => {
      const stamp = new Date((options.now ?? Date.now)()).toISOString().replace(/[:.]/g, "-");
      const backup = `${file}.bak-${stamp}`;
      // The backup is a second name of the transcript's own inode, taken before it is read: every line the host
      // appends meanwhile lands in it, so the replacement can carry those lines over (see replaceKeepingAppends).
      await fsp.link(file, backup);
      // Bytes, not text: decoding would turn invalid UTF-8 (a lone surrogate written by the host) into U+FFFD on every
      // line.
      const original = await fsp.readFile(backup);
      const plan = await planClean(
        original,
        stashingStubber(options.store, options.agentId, options.settings),
        options,
      );
      if (plan.rewrittenEntries === 0) {
        await fsp.rm(backup, { force: true });
        return { ...empty, ...withoutText(plan), status: "unchanged" };
      }
      // Write-ahead: gc keeps what the cleaned transcript cites (and re-scans it) as long as the transcript exists.
      await recordTranscriptReferences(
        path.dirname(options.store.root),
        file,
        plan.payloads.map((p) => p.handle),
      );
      const replaced = await replaceKeepingAppends(file, backup, plan.bytes, { readBytes: original.length });
      if (!replaced.replaced) {
        await fsp.rm(backup, { force: true });
        return {
          ...empty,
          ...withoutText(plan),
          status: "refused",
          reason:
            replaced.reason === "held"
              ? `pid ${replaced.writer} opened ${file} for writing while it was cleaned; nothing was replaced: let that process finish (or stop it) and retry`
              : `the session kept changing while it was cleaned (${file}); nothing was replaced: stop the gateway and retry`,
        };
      }
      const notes = [
        replaced.lateWriter !== undefined &&
          `pid ${replaced.lateWriter} opened the session in the instant of the replace and still holds the old file: what it writes now reaches only the backup ${backup}`,
        replaced.outOfOrder !== undefined &&
          `a process that ignores the session lock wrote ${replaced.outOfOrder} bytes into the old file after the replace, and later lines into the new one: they were carried after those lines, so that many bytes of lines may stand out of the order they were written in (none was lost; check the end of ${file})`,
      ].filter((n): n is string => typeof n === "string");
      return {
        ...empty,
        ...withoutText(plan),
        ...(notes.length > 0 ? { reason: notes.join("; ") } : {}),
        ...(replaced.outOfOrder !== undefined ? { outOfOrder: replaced.outOfOrder } : {}),
        status: "cleaned",
        backup,
      };
    };
    // Past a stale lock, or with --force past a lock that names no process, the host's lock cannot be taken: go
    // without it (the replace still refuses while a process holds the file open for writing).
    if (lock) return await run();
    const locked = await withHostLock(file, run);
    return locked
      ? locked.value
      : { ...empty, status: "refused", reason: `the host took the session lock meanwhile (${file}.lock)` };
  } catch (err) {
    const corrupt = isLedgerError(err, "artifact_corrupt") || isLedgerError(err, "state_corrupt");
    return { ...empty, status: "failed", reason: errorMessage(err), failure: corrupt ? "corrupt" : "other" };
  }
}

/**
 * The process that may write the session meanwhile: the host's lock naming a live pid (the gateway runs a turn of it,
 * `--force` or not: a line it writes after the replace would be lost), a lock that names no process (unknown: only
 * `--force` goes past it), or a process holding the file open for writing.
 */
async function liveHolder(
  file: string,
  lock: HostLockInfo | undefined,
): Promise<{ pid: number | null; refusal: string } | undefined> {
  if (lock?.held)
    return lock.pid !== null
      ? {
          pid: lock.pid,
          refusal: `held by pid ${lock.pid} (${lock.lockPath}); stop the gateway or wait for its run to end`,
        }
      : { pid: null, refusal: `held by an unknown process (${lock.lockPath}); stop the gateway or pass --force` };
  const st = await fsp.stat(file).catch(() => undefined);
  const [writer] = st ? findWriters(st, path.dirname(file)) : [];
  return writer !== undefined
    ? { pid: writer, refusal: `held by pid ${writer}, which has ${file} open for writing; let it finish or stop it` }
    : undefined;
}

function stashingStubber(store: ArtifactStore, agentId: string, settings: CleanFileOptions["settings"]): Stubber {
  return async (payload, info) => {
    const origin = {
      toolName: info.toolName,
      agentId,
      ...(info.toolCallId ? { toolCallId: info.toolCallId } : {}),
      ...(info.sessionId ? { sessionKey: info.sessionId } : {}),
    };
    const { handle } = await store.stash(payload, {
      kind: "tool-output",
      format: detectFormat(payload, { toolName: info.toolName }),
      origin,
    });
    // Lossless or nothing: the stored bytes must come back exactly before the transcript loses them.
    const back = await store.read(handle);
    if (!back.equals(Buffer.from(payload, "utf8"))) {
      throw new LedgerError(
        "artifact_corrupt",
        `Expected ${handle} to read back the ${info.field} of entry ${info.entryId} byte for byte, got ${back.length} different bytes`,
      );
    }
    return { handle, stub: cliStub(handle, payload, info, settings) };
  };
}

function withoutText<T extends { text: string; bytes: Buffer }>(plan: T): Omit<T, "text" | "bytes"> {
  const { text: _text, bytes: _bytes, ...rest } = plan;
  return rest;
}
