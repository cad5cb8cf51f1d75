import { promises as fsp } from "node:fs";
import path from "node:path";
import { errorMessage, isNotFound } from "../../errors.js";
import { agentRoot, decodeSegment } from "../../state/paths.js";
import type { SessionState } from "../../state/session-state.js";
import { readSessionState, sessionStatePath } from "../../state/session-file.js";

/** One session folder found under the ledger root. */
export interface ScannedSession {
  agentId: string;
  /** Session key (from the state file; decoded from the folder name when unreadable). */
  sessionKey: string;
  dir: string;
  /** The parsed state, undefined when missing or unreadable. */
  state: SessionState | undefined;
  /** Why the state could not be read, if it exists but could not. */
  error: string | undefined;
}

/** Agent ids that have a folder under `<root>/agents`, sorted. */
export async function listLedgerAgents(root: string): Promise<string[]> {
  const names = await readDirNames(path.join(root, "agents"));
  return names.map(decodeSegment).sort();
}

/** Every session of `agentId` under the ledger root, sorted by session key. */
export async function listLedgerSessions(root: string, agentId: string): Promise<ScannedSession[]> {
  const dir = path.join(agentRoot(root, agentId), "sessions");
  const out: ScannedSession[] = [];
  for (const name of await readDirNames(dir)) {
    const sessionDir = path.join(dir, name);
    const file = sessionStatePath(sessionDir);
    let state: SessionState | undefined;
    let error: string | undefined;
    try {
      await fsp.access(file);
      state = await readSessionState(file);
    } catch (err) {
      if (!isNotFound(err)) error = errorMessage(err);
    }
    out.push({ agentId, sessionKey: state?.sessionKey || decodeSegment(name), dir: sessionDir, state, error });
  }
  return out.sort((a, b) => a.sessionKey.localeCompare(b.sessionKey));
}

/** Names in a directory (directories only), empty when it does not exist. */
async function readDirNames(dir: string): Promise<string[]> {
  try {
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}
