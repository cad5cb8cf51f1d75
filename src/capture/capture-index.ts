import { readdirSync, readFileSync, statSync } from "node:fs";
import { LRUCache } from "lru-cache";
import path from "node:path";
import { sha256Hex, readArtifactTextSync } from "../artifacts/index.js";
import { LedgerError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { agentRoot, artifactRoot, encodeSegment } from "../state/paths.js";
import { matchHostCopy } from "../results/host-copy.js";
import { toolCallIdMatcher } from "./tool-call-id.js";
import type { LedgerServices } from "../runtime/services.js";
import { stateSlot } from "../runtime/state-slots.js";

/** What opening a capture index uses: the root and the runtime's parsed records. */
export type CaptureIndexDeps = Pick<LedgerServices, "root" | "state">;

/** Where the full original of one tool call's output lives. */
export interface CaptureRecord {
  schema: "context-ledger.capture.v2";
  /** The call id as the capturer saw it (the provider's, before the host rewrote it). */
  toolCallId: string;
  toolName: string;
  /** The session it belongs to: a capture is never linked to a result of another session. */
  sessionKey?: string;
  sessionId?: string;
  handle: string;
  /** Chars and lines of what was captured. */
  chars: number;
  lines: number;
  /**
   * How it was captured: `after-tool-call`, `spill-file`, `aggregated`, `result-text`, `exec-tee` ({@link TEE_SOURCE})
   * (`middleware` in older records).
   */
  source: string;
  /** Set when the capturer knows the capture is not the whole output (why). */
  partial?: string;
  /**
   * SHA-256 of the host's text of this very result, when captured from the stored message (its spill file,
   * `details.aggregated`).
   */
  hostTextSha256?: string;
}

/** The source of a capture the opt-in full-exec wrapper teed (the whole `exec` output). */
export const TEE_SOURCE = "exec-tee";

/** The session a capture or a lookup belongs to. */
export interface CaptureSession {
  sessionKey?: string;
  sessionId?: string;
}

/** A lookup: the host's tool result as the engine sees it. */
export interface CaptureQuery {
  /** The id the host stored (possibly rewritten). */
  hostId: string;
  /** The host's text of the result (possibly truncated). */
  hostText: string;
  session: CaptureSession;
}

/**
 * Per-agent, per-session index from tool call to the handle of its full
 * original output, so a result the host truncated and re-id'd still points at
 * every byte. Lookups are synchronous (assembly shapes messages synchronously).
 */
export interface CaptureIndex {
  /**
   * The capture of a host tool result: same session, a call id the host may
   * have rewritten into `hostId`, and content the host copy was verifiably cut
   * from (see {@link matchHostCopy}). Undefined when nothing verifies.
   */
  resolve(query: CaptureQuery): CaptureRecord | undefined;
  /** Persists a record (atomic; one file per session, call and content). */
  record(rec: Omit<CaptureRecord, "schema">): Promise<void>;
  /** The verified text behind a record (memoised), for the stub's summary and preview. */
  textOf(rec: CaptureRecord): string | undefined;
  /**
   * Every capture of one call of a session, by the call's id as the model sent it (or as the host
   * rewrote it), fullest first: the model asking for an output by its call's id.
   */
  ofCall(toolCallId: string, session: CaptureSession): CaptureRecord[];
}

// What the host normaliser answers when a call names no session: never a scope.
const UNKNOWN_SESSION = "unknown-session";

/** The capture scope of an engine call's identity (placeholders dropped). */
export function captureSessionOf(identity: { sessionKey?: string; sessionId?: string }): CaptureSession {
  const known = (v: string | undefined) => (v && v !== UNKNOWN_SESSION ? v : undefined);
  const sessionKey = known(identity.sessionKey);
  const sessionId = known(identity.sessionId);
  return { ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}) };
}

/** True when a record and a lookup are the same session (both sides must name it). */
export function sameSession(rec: CaptureSession, query: CaptureSession): boolean {
  if (rec.sessionKey && query.sessionKey && rec.sessionKey === query.sessionKey) return true;
  return Boolean(rec.sessionId && query.sessionId && rec.sessionId === query.sessionId);
}

/**
 * True when `original` holds all of `kept` at its start (a host that keeps the head) or its end
 * (`exec` keeps the last chars, less a final newline it trims).
 */
function holdsAll(original: string, kept: string | undefined): boolean {
  if (kept === undefined || kept.length === 0) return false;
  if (original.startsWith(kept)) return true;
  const tail = kept.trimEnd();
  return tail.length > 0 && original.trimEnd().endsWith(tail);
}

/** A record as read, with the matcher of its call id (its host forms are costly: computed once). */
interface ReadRecord {
  rec: CaptureRecord;
  /** Its file's path: records of one call are taken in this order, whatever order the folder lists them in. */
  file: string;
  matchesId: (hostId: string) => boolean;
}

/** Records read so far, by file path: the runtime keeps one for every index it opens. */
export type CaptureRecordCache = LRUCache<string, ReadRecord>;

/** Record files a runtime keeps parsed (a few hundred bytes each). */
const MAX_CACHED_RECORDS = 100_000;
const RECORDS = stateSlot("capture:records", (): CaptureRecordCache => new LRUCache({ max: MAX_CACHED_RECORDS }));

/**
 * A session folder's record files as last listed, and the records of each call asked. Trusted without listing again
 * only while `settled` and the folder's time is unchanged; otherwise listed again, and only the files that are new
 * are read and matched.
 */
interface FolderListing {
  dir: string;
  mtimeNs: bigint;
  settled: boolean;
  /** Names of its record files. */
  files: Set<string>;
  byCall: Map<string, ReadRecord[]>;
}

/** Folder listings a runtime keeps (one per session with captures). */
export type CaptureListingCache = LRUCache<string, FolderListing>;

const MAX_CACHED_LISTINGS = 256;
const LISTINGS = stateSlot("capture:listings", (): CaptureListingCache => new LRUCache({ max: MAX_CACHED_LISTINGS }));

function byFile(records: ReadRecord[]): ReadRecord[] {
  return records.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

function isSubset(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/**
 * A listing is trusted without listing the folder again only once the folder has not changed for this long before
 * it was listed: a file added within the timestamp's granularity of the listing would leave the folder's time as it
 * was (git's racy-index rule).
 */
const SETTLED_NS = 2_000_000_000n;

/**
 * The capture index of one agent as this runtime opens it: one per call, sharing the
 * runtime's parsed records and folder listings, so a session's captures are read from disk once and
 * its folder listed again only when it changed, not on every assemble (a 500-turn session holds a
 * thousand of them).
 */
export function captureIndexOf(deps: CaptureIndexDeps, agentId: string): CaptureIndex {
  return createCaptureIndex(deps.root, agentId, deps.state.get(RECORDS), deps.state.get(LISTINGS));
}

/**
 * Opens the capture index of one agent under the ledger root (`records`: parsed files, `listings`: folder listings,
 * both kept between indexes).
 */
export function createCaptureIndex(
  root: string,
  agentId: string,
  records?: CaptureRecordCache,
  listings?: CaptureListingCache,
): CaptureIndex {
  const dir = path.join(agentRoot(root, agentId), "captures", "v2");
  const storeRoot = artifactRoot(root, agentId);
  // Records are immutable once written (the file name holds the handle): memoise by path. A file that does not
  // parse is remembered for this index only: it may be a capture still being written.
  const read: Pick<CaptureRecordCache, "get" | "set"> = records ?? new LRUCache({ max: MAX_CACHED_RECORDS });
  const unreadable = new Set<string>();
  const remember = (file: string, rec: CaptureRecord): ReadRecord => {
    const entry = { rec, file, matchesId: toolCallIdMatcher(rec.toolCallId) };
    read.set(file, entry);
    return entry;
  };
  const readRecord = (file: string): ReadRecord | undefined => {
    const known = read.get(file);
    if (known || unreadable.has(file)) return known;
    try {
      const parsed = JSON.parse(readFileSync(file, "utf8")) as CaptureRecord;
      if (parsed.schema === "context-ledger.capture.v2" && typeof parsed.handle === "string")
        return remember(file, parsed);
    } catch {
      // A capture being written or damaged resolves nothing; the host's own text stays.
    }
    unreadable.add(file);
    return undefined;
  };
  const sessionDirs = (s: CaptureSession): string[] =>
    [...new Set([s.sessionKey, s.sessionId].filter((v): v is string => Boolean(v)))].map((k) =>
      path.join(dir, encodeSegment(k)),
    );
  const textMemo = new Map<string, string | null>();
  const originalOf = (handle: string): string | undefined => {
    if (!textMemo.has(handle)) textMemo.set(handle, readArtifactTextSync(storeRoot, handle) ?? null);
    return textMemo.get(handle) ?? undefined;
  };

  /** A folder's listing: the kept one while it is settled and unchanged, else listed again onto the kept one. */
  const listFolder = (d: string): FolderListing | undefined => {
    let mtimeNs: bigint;
    let names: string[];
    const kept = listings?.get(d);
    try {
      mtimeNs = statSync(d, { bigint: true }).mtimeNs;
      if (kept?.settled && kept.mtimeNs === mtimeNs) return kept;
      names = readdirSync(d);
    } catch {
      // No capture folder for this session (yet).
      return undefined;
    }
    const files = new Set(names.filter((n) => n.endsWith(".json")));
    const settled = BigInt(Date.now()) * 1_000_000n - mtimeNs > SETTLED_NS;
    const listing: FolderListing = { dir: d, mtimeNs, settled, files, byCall: new Map() };
    // Records are never rewritten in place: while none was removed, what was matched stays, plus the new files.
    if (kept && kept.byCall.size > 0 && isSubset(kept.files, files)) {
      const added = [...files].filter((n) => !kept.files.has(n));
      for (const [callId, found] of kept.byCall) {
        const more = matching(d, added, callId);
        if (more.complete) listing.byCall.set(callId, byFile([...found, ...more.found]));
      }
    }
    listings?.set(d, listing);
    return listing;
  };
  /** The readable records among `names` of one call id, in file order; `complete` when every one could be read. */
  const matching = (d: string, names: Iterable<string>, callId: string) => {
    const found: ReadRecord[] = [];
    let complete = true;
    for (const name of names) {
      const entry = readRecord(path.join(d, name));
      if (!entry) complete = false;
      else if (entry.matchesId(callId)) found.push(entry);
    }
    return { found: byFile(found), complete };
  };
  /** A folder's records of one call id, matched once per listing (a file that could not be read: asked again). */
  const folderRecordsOf = (listing: FolderListing, callId: string): ReadRecord[] => {
    const known = listing.byCall.get(callId);
    if (known) return known;
    const { found, complete } = matching(listing.dir, listing.files, callId);
    if (complete) listing.byCall.set(callId, found);
    return found;
  };
  /** The session's capture records of one tool call (its host id in any of the forms the hosts store). */
  const recordsOfCall = (session: Parameters<typeof sessionDirs>[0], callId: string): CaptureRecord[] => {
    const found: CaptureRecord[] = [];
    for (const d of sessionDirs(session)) {
      const listing = listFolder(d);
      if (!listing) continue;
      for (const entry of folderRecordsOf(listing, callId))
        if (sameSession(entry.rec, session) && !found.includes(entry.rec)) found.push(entry.rec);
    }
    return found;
  };

  return {
    resolve(query) {
      const candidates = recordsOfCall(query.session, query.hostId);
      // Exact matches only: captured from this very message, or the host copy is this capture's own truncation.
      const hostHash = candidates.some((rec) => rec.hostTextSha256) ? sha256Hex(query.hostText) : undefined;
      const exact = candidates.filter((rec) => {
        if (rec.hostTextSha256 && rec.hostTextSha256 === hostHash) return originalOf(rec.handle) !== undefined;
        const original = originalOf(rec.handle);
        return original !== undefined && matchHostCopy(query.hostText, original) === "exact";
      });
      // A fuller capture of the same call (the tool's own result beside a capped
      // copy) is linked when a verified capture is a prefix of it.
      const fuller = candidates.filter((rec) => {
        if (exact.includes(rec)) return false;
        const original = originalOf(rec.handle);
        return (
          original !== undefined && exact.some((e) => e.chars < rec.chars && holdsAll(original, originalOf(e.handle)))
        );
      });
      const verified = [...exact, ...fuller];
      // The same content can be recorded twice: the same session id first, then the largest.
      verified.sort(
        (a, b) =>
          Number(b.sessionId === query.session.sessionId) - Number(a.sessionId === query.session.sessionId) ||
          b.chars - a.chars,
      );
      return verified[0];
    },
    textOf: (rec) => originalOf(rec.handle),
    ofCall(toolCallId, session) {
      return recordsOfCall(session, toolCallId).sort(
        (a, b) => Number(b.source === TEE_SOURCE) - Number(a.source === TEE_SOURCE) || b.chars - a.chars,
      );
    },
    async record(rec) {
      const full: CaptureRecord = { schema: "context-ledger.capture.v2", ...rec };
      const scope = rec.sessionKey ?? rec.sessionId;
      if (!scope)
        throw new LedgerError(
          "input_invalid",
          `Expected a session key or id for the capture of call ${rec.toolCallId}, got neither`,
        );
      const file = path.join(
        dir,
        encodeSegment(scope),
        `${encodeSegment(rec.toolCallId)}.${rec.handle.slice(-16)}.json`,
      );
      await writeFileAtomic(file, `${JSON.stringify(full)}\n`);
      remember(file, full);
    },
  };
}
