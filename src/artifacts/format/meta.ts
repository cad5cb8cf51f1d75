import { describeValue, LedgerError } from "../../errors.js";
import { isHandle } from "./handle.js";
import type { Compression } from "./gzip-codec.js";

/** Schema name of artifact metadata files. */
export const ARTIFACT_META_SCHEMA = "context-ledger.artifact.meta.v1";

/** Where an artifact came from. Every field is optional. */
export interface ArtifactOrigin {
  toolName?: string;
  toolCallId?: string;
  agentId?: string;
  sessionKey?: string;
}

/** The metadata stored beside a blob. Never contains the content. */
export interface ArtifactMeta {
  schema: typeof ARTIFACT_META_SCHEMA;
  handle: string;
  sha256: string;
  /** Size of the original content in bytes. */
  bytes: number;
  /** Size of the blob on disk. */
  storedBytes: number;
  compression: Compression;
  /** ISO timestamp of the first stash. */
  createdAt: string;
  /** Free-form kind, e.g. `tool-output`, `schema`, `field`, `cli`. */
  kind: string;
  /** Detected or declared format (`json`, `log`, `text`, ...). */
  format: string;
  /** Line count of the content as text. */
  lines: number;
  origin: ArtifactOrigin;
  /**
   * Digest of the blob's chunk index as written (see `indexDigest`): binds the index to the handle, so a range
   * read of a blob whose index was rewritten is refused. Absent for a raw blob and in metas written before it
   * existed (their blobs are read whole and checked against the handle).
   */
  indexSha256?: string;
}

/** Parses a meta file's JSON text; throws `state_corrupt` when it is not a valid v1 meta. */
export function parseArtifactMeta(text: string, where: string): ArtifactMeta {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new LedgerError("state_corrupt", `Expected JSON in artifact meta \`${where}\`, got a parse error`, {
      cause: err,
    });
  }
  const m = value as Partial<ArtifactMeta> | null;
  const ok =
    m !== null &&
    typeof m === "object" &&
    m.schema === ARTIFACT_META_SCHEMA &&
    isHandle(m.handle) &&
    typeof m.sha256 === "string" &&
    m.handle.endsWith(m.sha256) &&
    Number.isInteger(m.bytes) &&
    Number.isInteger(m.storedBytes) &&
    (m.compression === "none" || m.compression === "gzip") &&
    typeof m.createdAt === "string" &&
    typeof m.kind === "string" &&
    typeof m.format === "string" &&
    Number.isInteger(m.lines) &&
    typeof m.origin === "object" &&
    m.origin !== null &&
    (m.indexSha256 === undefined || (typeof m.indexSha256 === "string" && /^[0-9a-f]{64}$/.test(m.indexSha256)));
  if (!ok) {
    throw new LedgerError(
      "state_corrupt",
      `Expected a \`${ARTIFACT_META_SCHEMA}\` object in \`${where}\`, got ${describeValue(value)}`,
    );
  }
  return m as ArtifactMeta;
}

/** Counts lines the way selectors do: a trailing newline does not open a new line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  let i = text.indexOf("\n");
  while (i >= 0) {
    if (i < text.length - 1) n++;
    i = text.indexOf("\n", i + 1);
  }
  return n;
}

/** Keeps only the known string fields of an origin (no payload sneaks into meta). */
export function cleanOrigin(origin: ArtifactOrigin | undefined): ArtifactOrigin {
  const out: ArtifactOrigin = {};
  for (const key of ["toolName", "toolCallId", "agentId", "sessionKey"] as const) {
    const v = origin?.[key];
    if (typeof v === "string" && v.length > 0) out[key] = v.slice(0, 512);
  }
  return out;
}
