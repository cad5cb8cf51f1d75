/**
 * Superseded transcript lines in the artifact store, each big string stored once. 2026.4.24's safe rewrite re-appends
 * the tail of the branch, so one tool output is superseded again and again, in lines that differ only in their entry
 * `id`, `parentId` and `timestamp`: stored whole, every reclaim kept another copy (15 MiB of store over a 500-turn run,
 * against 1.8 MiB on 2026.9.6). So every string of at least {@link RECLAIM_PART_MIN_CHARS} in a dropped line is stored
 * on its own (content-addressed: a second copy, or an output already captured, costs nothing) and the line keeps a
 * reference to it, but only where putting the parts back gives the line as written, byte for byte.
 *
 * The packed blob ({@link PACKED_BRANCHES_KIND}) is JSONL: a header line ({@link ReclaimedLinesHeader}), then the
 * lines in order. A line the header lists in `packed` holds `{"$ledgerPart":"<handle>"}` where a part's string was;
 * every other line is as written. The list, not the key, says which lines hold references: a line written with the
 * key itself is stored as written and read back as it is.
 */
import { type ArtifactOrigin, handleForBytes, isHandle, sha256Hex, type ArtifactStore } from "../artifacts/index.js";
import { describeValue, LedgerError } from "../errors.js";
import { joinByteLines, splitByteLines } from "../fs/byte-lines.js";
import { detectFormat } from "../results/detect-format.js";

/** Strings of at least this many characters in a reclaimed line are stored once, on their own. */
export const RECLAIM_PART_MIN_CHARS = 2_048;
/** The one key of the object that stands for a part in a packed line: `{"$ledgerPart":"ledger:v1:sha256:…"}`. */
const RECLAIM_PART_KEY = "$ledgerPart";
/** Kind of a blob of reclaimed lines as written (no line packed). */
export const PLAIN_BRANCHES_KIND = "transcript-branches";
/** Kind of a blob of reclaimed lines with parts stored apart (see the module comment). */
export const PACKED_BRANCHES_KIND = "transcript-branches-packed";
/** Kind of a string stored apart from its packed line (an equal tool output captured first keeps its own kind). */
export const TRANSCRIPT_PART_KIND = "transcript-part";
/** `schema` of a packed blob's header line. */
const RECLAIMED_LINES_SCHEMA = "context-ledger.reclaimed-lines.v1";

/** The first line of a {@link PACKED_BRANCHES_KIND} blob. */
export interface ReclaimedLinesHeader {
  schema: typeof RECLAIMED_LINES_SCHEMA;
  /** Size of the lines as written, every one ended by a newline. */
  bytes: number;
  /** SHA-256 (hex) of the lines as written. */
  sha256: string;
  /** Indexes of the lines that hold references, 0 being the line after the header, ascending. */
  packed: number[];
  /** Every part the packed lines name. */
  parts: string[];
}

/** What {@link stashReclaimedLines} stored. */
export interface StashedLines {
  /** The blob of the lines (packed or plain); {@link readReclaimedLines} gives them back as written. */
  handle: string;
  /** The parts the blob names (none for a plain blob): whatever keeps the blob must keep them too. */
  parts: string[];
}

/**
 * Stores `lines` (as written, without their newlines) as one blob, every big string once (see the module comment):
 * the parts first, then the blob. A plain blob when no line packs.
 */
export async function stashReclaimedLines(
  store: ArtifactStore,
  lines: readonly Buffer[],
  origin: ArtifactOrigin,
): Promise<StashedLines> {
  const written = joinLines(lines);
  const parts = new Map<string, Buffer>();
  const packed: number[] = [];
  const stored = lines.map((line, i) => {
    const p = packLine(line);
    if (!p) return line;
    packed.push(i);
    for (const [handle, bytes] of p.parts) parts.set(handle, bytes);
    return p.line;
  });
  if (packed.length === 0) {
    const { handle } = await store.stash(written, { kind: PLAIN_BRANCHES_KIND, format: "jsonl", origin });
    return { handle, parts: [] };
  }
  for (const bytes of parts.values()) {
    const format = detectFormat(bytes.toString("utf8"));
    await store.stash(bytes, { kind: TRANSCRIPT_PART_KIND, format, origin });
  }
  const header: ReclaimedLinesHeader = {
    schema: RECLAIMED_LINES_SCHEMA,
    bytes: written.length,
    sha256: sha256Hex(written),
    packed,
    parts: [...parts.keys()],
  };
  const blob = joinLines([Buffer.from(JSON.stringify(header)), ...stored]);
  const { handle } = await store.stash(blob, { kind: PACKED_BRANCHES_KIND, format: "jsonl", origin });
  return { handle, parts: header.parts };
}

/**
 * The reclaimed lines of blob `handle` as written, each ended by a newline: a plain blob's bytes, or a packed one's
 * lines with their parts put back, checked against the header's size and SHA-256. Throws as the store reads,
 * `artifact_corrupt` when the packed blob does not give back what it recorded, `input_invalid` for another kind.
 */
export async function readReclaimedLines(store: ArtifactStore, handle: string): Promise<Buffer> {
  const meta = await store.readMeta(handle);
  if (meta.kind === PLAIN_BRANCHES_KIND) return store.read(handle);
  if (meta.kind !== PACKED_BRANCHES_KIND)
    throw new LedgerError(
      "input_invalid",
      `Expected reclaimed transcript lines (kind \`${PLAIN_BRANCHES_KIND}\` or \`${PACKED_BRANCHES_KIND}\`) at ${handle}, got kind \`${meta.kind}\``,
    );
  const [first, ...rest] = splitByteLines(await store.read(handle));
  const header = parseHeader(first ?? Buffer.alloc(0), handle);
  // The blob ends with a newline: its last split is empty.
  const lines = rest.slice(0, -1);
  const texts = new Map<string, string>();
  for (const part of header.parts) texts.set(part, (await store.read(part)).toString("utf8"));
  const packed = new Set(header.packed);
  const out = joinLines(lines.map((l, i) => (packed.has(i) ? Buffer.from(unpackLine(l.toString("utf8"), texts)) : l)));
  if (out.length !== header.bytes || sha256Hex(out) !== header.sha256)
    throw new LedgerError(
      "artifact_corrupt",
      `Expected the lines of ${handle} to unpack to ${header.bytes} bytes with SHA-256 ${header.sha256}, got ${out.length} bytes with ${sha256Hex(out)}`,
    );
  return out;
}

/** Every line ends with a newline, the last one too. */
function joinLines(lines: readonly Buffer[]): Buffer {
  return joinByteLines([...lines, Buffer.alloc(0)]);
}

/**
 * `line` with its big strings replaced by references, and those strings as UTF-8 by handle; undefined when the line
 * is to be kept as written: not JSON, no big string, the reference key already in it, or not given back exactly.
 */
function packLine(line: Buffer): { line: Buffer; parts: Map<string, Buffer> } | undefined {
  const parts = new Map<string, Buffer>();
  let holdsKey = false;
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"), (key, v: unknown) => {
      if (key === RECLAIM_PART_KEY) holdsKey = true;
      if (typeof v !== "string" || v.length < RECLAIM_PART_MIN_CHARS) return v;
      const bytes = Buffer.from(v, "utf8");
      const handle = handleForBytes(bytes);
      parts.set(handle, bytes);
      return { [RECLAIM_PART_KEY]: handle };
    });
  } catch {
    return undefined;
  }
  if (holdsKey || parts.size === 0) return undefined;
  const packed = JSON.stringify(value);
  // Put back from the bytes the store will hold: a line not in JSON.stringify's form (spacing, escapes, duplicate
  // keys, number forms) or a string UTF-8 cannot carry (a lone surrogate) does not come back, and stays as written.
  const texts = new Map([...parts].map(([handle, bytes]) => [handle, bytes.toString("utf8")]));
  if (!Buffer.from(unpackLine(packed, texts)).equals(line)) return undefined;
  return { line: Buffer.from(packed), parts };
}

/** A packed line's text with every reference replaced by its part's text; `artifact_corrupt` for an unknown part. */
function unpackLine(text: string, texts: ReadonlyMap<string, string>): string {
  let value: unknown;
  try {
    value = JSON.parse(text, (_key, v: unknown) => {
      if (!isPartReference(v)) return v;
      const part = texts.get(v[RECLAIM_PART_KEY]);
      if (part === undefined)
        throw new LedgerError("artifact_corrupt", `Expected a part the header lists, got ${v[RECLAIM_PART_KEY]}`);
      return part;
    });
  } catch (err) {
    if (err instanceof LedgerError) throw err;
    throw new LedgerError("artifact_corrupt", `Expected a packed line to be JSON, got a parse error`, { cause: err });
  }
  return JSON.stringify(value);
}

function isPartReference(v: unknown): v is { [RECLAIM_PART_KEY]: string } {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && typeof (v as Record<string, unknown>)[RECLAIM_PART_KEY] === "string";
}

function parseHeader(line: Buffer, handle: string): ReclaimedLinesHeader {
  let h: Partial<ReclaimedLinesHeader> | undefined;
  try {
    h = JSON.parse(line.toString("utf8")) as Partial<ReclaimedLinesHeader>;
  } catch {
    h = undefined;
  }
  const ok =
    typeof h === "object" &&
    h !== null &&
    h.schema === RECLAIMED_LINES_SCHEMA &&
    Number.isInteger(h.bytes) &&
    typeof h.sha256 === "string" &&
    /^[0-9a-f]{64}$/.test(h.sha256) &&
    Array.isArray(h.packed) &&
    h.packed.every((i) => Number.isInteger(i) && i >= 0) &&
    Array.isArray(h.parts) &&
    h.parts.every(isHandle);
  if (!ok)
    throw new LedgerError(
      "artifact_corrupt",
      `Expected ${handle} to open with a \`${RECLAIMED_LINES_SCHEMA}\` header, got ${describeValue(line.toString("utf8"))}`,
    );
  return h as ReclaimedLinesHeader;
}
