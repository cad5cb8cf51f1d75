import { promises as fsp } from "node:fs";
import { isNotFound } from "../../errors.js";
import path from "node:path";
import type { ArtifactStore } from "../../artifacts/index.js";
import { collectReferences, collectUnreadable, followCitations, scanFileHandles } from "../../state/reference-scan.js";
import { agentRoot, encodeSegment, sessionRoot } from "../../state/paths.js";
import { tryReadSessionState, sessionStatePath } from "../../state/session-file.js";
import {
  describeTranscript,
  listHostTranscripts,
  transcriptHandles,
  type HostTranscript,
  type UnreadableSource,
} from "./host-sessions.js";

/** What cites a session's offloaded outputs, handle by handle. */
export interface SessionReferences {
  /** Handle → where it is referenced (host transcript, ledger state file, citing pack), in the order found. */
  handles: Map<string, string[]>;
  /** The host transcripts found for the session. */
  transcripts: HostTranscript[];
  /** Sources that exist but could not be read: what they cite is not in `handles`. */
  unreadable: UnreadableSource[];
}

/** Options of {@link findSessionReferences}. */
export interface FindSessionReferencesOptions {
  ledgerRoot: string;
  openclawState: string;
  agentId: string;
  /** Session key (or a host session id); undefined for every session of the agent. */
  sessionKey: string | undefined;
  store: ArtifactStore;
}

/**
 * Every handle the session's host transcripts (JSONL or 2026.9.x SQLite) or the ledger's state of the session
 * (session state, summaries and views, capture records) cite, every output the store recorded as stashed by the
 * session, and, transitively, what checkpoint packs and stripped parts among them cite. Without a session key: the
 * whole agent (what `artifact gc` keeps, plus every stored output).
 */
export async function findSessionReferences(options: FindSessionReferencesOptions): Promise<SessionReferences> {
  const { ledgerRoot, agentId, sessionKey: key, store } = options;
  const handles = new Map<string, string[]>();
  const unreadable: UnreadableSource[] = [];
  const fail = collectUnreadable(unreadable);
  const cite = (found: Iterable<string>, where: string) => {
    for (const h of found) {
      const list = handles.get(h) ?? [];
      if (!list.includes(where)) list.push(where);
      handles.set(h, list);
    }
  };

  const listed = await listHostTranscripts({ ...options, agentId });
  unreadable.push(...listed.unreadable);
  if (key === undefined) {
    const scan = await collectReferences(agentRoot(ledgerRoot, agentId), store);
    unreadable.push(...scan.unreadable);
    cite(scan.handles, `agent ${agentId} (its host transcripts or ledger state)`);
    for await (const meta of store.list())
      cite([meta.handle], `store (stashed by session ${meta.origin.sessionKey ?? "unknown"})`);
    return { handles, transcripts: listed.transcripts, unreadable };
  }

  const sessionDir = sessionRoot(ledgerRoot, agentId, key);
  const state = await tryReadSessionState(sessionStatePath(sessionDir)).catch(() => undefined);
  const transcripts = listed.transcripts.filter(
    (t) => t.sessionKey === key || t.sessionId === key || (state?.sessionId && t.sessionId === state.sessionId),
  );
  for (const t of transcripts) cite(await transcriptHandles(t, fail), describeTranscript(t));

  const captures = path.join(agentRoot(ledgerRoot, agentId), "captures", "v2");
  const ledgerDirs = [
    sessionDir,
    ...[key, ...new Set(transcripts.map((t) => t.sessionId))].map((k) => path.join(captures, encodeSegment(k))),
  ];
  for (const dir of ledgerDirs)
    for (const file of await filesUnder(dir, fail)) {
      const found = new Set<string>();
      await scanFileHandles(file, found).catch((err) => fail(file, err));
      cite(found, `ledger state ${path.relative(ledgerRoot, file)}`);
    }

  for await (const meta of store.list())
    if (meta.origin.sessionKey === key) cite([meta.handle], "store (stashed by this session)");

  // Packs and stripped parts cite more: their originals belong to the session too.
  await followCitations(store, new Set(handles.keys()), fail, (cited, by) => cite([cited], `cited by ${by}`));
  return { handles, transcripts, unreadable };
}

/** Regular files under `dir`, recursively; none when it does not exist. */
async function filesUnder(dir: string, fail: (source: string, err: unknown) => void): Promise<string[]> {
  let entries;
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (!isNotFound(err)) fail(dir, err);
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(full, fail)));
    else if (e.isFile()) out.push(full);
  }
  return out;
}
