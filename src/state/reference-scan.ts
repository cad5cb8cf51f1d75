import { createReadStream, promises as fsp } from "node:fs";
import path from "node:path";
import { createArtifactStore, HANDLE_LENGTH, handlePattern, type ArtifactStore } from "../artifacts/index.js";
import { isLedgerError, isNotFound, LedgerError } from "../errors.js";
import { zstdDecompressor } from "../fs/zstd.js";
import { decodeSegment, LEDGER_DIR_NAME } from "./paths.js";
import { readReferenceIndex, REFERENCE_INDEX_FILE } from "./reference-index.js";
import { sqliteDatabaseClass } from "../fs/sqlite.js";

/**
 * Artifact kinds whose content may cite other artifacts (packs name `previous` and `artifacts`; stripped parts hold
 * pointers; packed transcript branches name the parts they are read back with, so a kept blob stays readable).
 */
const CITING_KINDS: ReadonlySet<string> = new Set(["checkpoint", "schema", "field", "transcript-branches-packed"]);

/** What {@link collectReferences} found. */
export interface ReferenceScan {
  handles: Set<string>;
  /** Sources that exist but could not be read: their references are unknown. */
  unreadable: Array<{ source: string; reason: string }>;
  /** Host transcripts re-scanned (index records and the agent's session folder). */
  transcriptsScanned: number;
}

/**
 * Every handle one agent's state cites, for `artifact gc`: all ledger files
 * of the agent (sessions, summaries, capture records; the store excluded),
 * the reference index with each recorded host transcript re-scanned, the
 * host's own transcripts of the agent (JSONL on 2026.4, the SQLite
 * `transcript_events` on 2026.9, rows zstd-compressed or not), and,
 * transitively, what checkpoint packs, stripped parts and packed transcript branches cite, read through `store` (the
 * configured store, so packs that live only in a bucket count; the agent's local file store when not given). Files of
 * any size are scanned (streamed). Sources that cannot be read are listed.
 */
export async function collectReferences(agentDir: string, store?: ArtifactStore): Promise<ReferenceScan> {
  const found = new Set<string>();
  const unreadable: ReferenceScan["unreadable"] = [];
  const fail = collectUnreadable(unreadable);
  const artifacts = path.join(agentDir, "artifacts");

  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (!isNotFound(err)) fail(dir, err);
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (full !== artifacts) await walk(full);
      } else if (e.isFile() && !(dir === agentDir && e.name === REFERENCE_INDEX_FILE)) {
        // A file gone since the listing (a temp file renamed into place) cites nothing any more.
        await scanFileHandles(full, found).catch((err) => isNotFound(err) || fail(full, err));
      }
    }
  };
  await walk(agentDir);

  // Recorded transcripts: kept while the transcript exists, and re-scanned as a check.
  const transcripts = new Set<string>();
  try {
    for (const record of await readReferenceIndex(agentDir)) {
      const exists = await fsp.stat(record.path).then(
        () => true,
        (err: unknown) => (isNotFound(err) ? false : (fail(record.path, err), true)),
      );
      if (!exists) continue;
      for (const h of record.handles) found.add(h);
      transcripts.add(record.path);
    }
  } catch (err) {
    fail(path.join(agentDir, REFERENCE_INDEX_FILE), err);
  }
  for (const file of await hostTranscripts(agentDir, fail)) transcripts.add(file);
  for (const file of transcripts) {
    if (file.endsWith(".sqlite")) scanSqliteHandles(file, found, fail);
    else await scanFileHandles(file, found).catch((err) => isNotFound(err) || fail(file, err));
  }

  // Packs and stripped parts cite more artifacts: follow them to the end of every chain.
  await followCitations(store ?? createArtifactStore({ root: artifacts }), found, fail);
  return { handles: found, unreadable, transcriptsScanned: transcripts.size };
}

/**
 * A `fail` callback of the scans below that records each source in `list`: with the errno code, or the message
 * (a {@link LedgerError}'s message says what to do, e.g. which Node reads SQLite).
 */
export function collectUnreadable(list: ReferenceScan["unreadable"]): (source: string, err: unknown) => void {
  return (source, err) =>
    list.push({
      source,
      reason: isLedgerError(err) ? err.message : ((err as NodeJS.ErrnoException).code ?? (err as Error).message),
    });
}

/**
 * {@link collectReferences} for gc: throws `io_failed` naming every source
 * that could not be read (deleting then could remove what it cites).
 */
export async function scanReferencedHandles(agentDir: string, store?: ArtifactStore): Promise<Set<string>> {
  const scan = await collectReferences(agentDir, store);
  if (scan.unreadable.length > 0) {
    const list = scan.unreadable.map((u) => `${u.source} (${u.reason})`).join(", ");
    throw new LedgerError(
      "io_failed",
      `Expected every source that may cite an artifact to be readable before gc deletes anything, got ${scan.unreadable.length} unreadable: ${list}; fix their permissions or move them away, then run gc again`,
    );
  }
  return scan.handles;
}

/**
 * The host's transcripts of this agent, when the ledger root sits in the host's state dir (`<state>/context-ledger`).
 */
async function hostTranscripts(agentDir: string, fail: (source: string, err: unknown) => void): Promise<string[]> {
  const ledgerRoot = path.dirname(path.dirname(agentDir));
  if (path.basename(ledgerRoot) !== LEDGER_DIR_NAME) return [];
  const hostAgent = path.join(path.dirname(ledgerRoot), "agents", decodeSegment(path.basename(agentDir)));
  const out: string[] = [];
  const sessions = path.join(hostAgent, "sessions");
  try {
    for (const name of await fsp.readdir(sessions)) if (name.endsWith(".jsonl")) out.push(path.join(sessions, name));
  } catch (err) {
    if (!isNotFound(err)) fail(sessions, err);
  }
  const sqlite = path.join(hostAgent, "agent", "openclaw-agent.sqlite");
  if (
    await fsp.stat(sqlite).then(
      () => true,
      () => false,
    )
  )
    out.push(sqlite);
  return out;
}

/**
 * Adds every handle cited by what `found` holds, to the end of every chain: checkpoint packs name `previous` and
 * `artifacts`, stripped parts hold pointers. `onCite` hears each new handle with the one that cites it.
 */
export async function followCitations(
  store: ArtifactStore,
  found: Set<string>,
  fail: (source: string, err: unknown) => void,
  onCite?: (cited: string, by: string) => void,
): Promise<void> {
  const queue = [...found];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const handle = queue.pop() as string;
    if (seen.has(handle)) continue;
    seen.add(handle);
    let meta;
    try {
      meta = await store.tryReadMeta(handle);
    } catch (err) {
      // Unknown (the bucket unreachable, a damaged meta): what it may cite is unknown too.
      fail(`artifact ${handle} (meta)`, err);
      continue;
    }
    if (!meta || !CITING_KINDS.has(meta.kind)) continue;
    let text: string;
    try {
      text = await store.readText(handle);
    } catch (err) {
      fail(`artifact ${handle} (${meta.kind})`, err);
      continue;
    }
    for (const m of text.matchAll(handlePattern())) {
      onCite?.(m[0], handle);
      if (!found.has(m[0])) {
        found.add(m[0]);
        queue.push(m[0]);
      }
    }
  }
}

/** Adds every handle in a text file of any size (streamed) to `found`; throws when it cannot be read. */
export async function scanFileHandles(file: string, found: Set<string>): Promise<void> {
  let carry = "";
  for await (const chunk of createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as string);
    for (const m of text.matchAll(handlePattern())) found.add(m[0]);
    carry = text.slice(-(HANDLE_LENGTH - 1));
  }
}

/**
 * The 2026.9 transcript store: adds the handles in every text or blob cell of `transcript_events` (of the rows of
 * `sessionIds` when given), zstd frames decompressed; a database that cannot be read goes to `fail`.
 */
export function scanSqliteHandles(
  file: string,
  found: Set<string>,
  fail: (source: string, err: unknown) => void,
  sessionIds?: readonly string[],
): void {
  let db: import("node:sqlite").DatabaseSync | undefined;
  try {
    const DatabaseSync = sqliteDatabaseClass();
    db = new DatabaseSync(file, { readOnly: true });
    const rows =
      sessionIds === undefined
        ? db.prepare("SELECT * FROM transcript_events").iterate()
        : db
            .prepare(
              `SELECT * FROM transcript_events WHERE session_id IN (${sessionIds.map(() => "?").join(", ") || "NULL"})`,
            )
            .iterate(...sessionIds);
    for (const row of rows) {
      for (const cell of Object.values(row as Record<string, unknown>)) {
        const text = typeof cell === "string" ? cell : cell instanceof Uint8Array ? blobText(cell) : undefined;
        if (text) for (const m of text.matchAll(handlePattern())) found.add(m[0]);
      }
    }
  } catch (err) {
    fail(`${file} (transcript_events)`, err);
  } finally {
    db?.close();
  }
}

const ZSTD_MAGIC = 0xfd2fb528;

function blobText(blob: Uint8Array): string {
  const buf = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  if (buf.length >= 4 && buf.readUInt32LE(0) === ZSTD_MAGIC) {
    const decompress = zstdDecompressor();
    // Unread, the source counts as unreadable and gc keeps everything it might reference.
    if (!decompress)
      throw new LedgerError(
        "io_failed",
        `Expected Node 22.15 or later to read the host's zstd transcript rows, got Node ${process.versions.node}`,
      );
    return decompress(buf).toString("utf8");
  }
  return buf.toString("utf8");
}
