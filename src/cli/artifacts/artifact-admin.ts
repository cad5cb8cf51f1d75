import { formatHandle, parseHandle, type ArtifactMeta } from "../../artifacts/index.js";
import { LedgerError } from "../../errors.js";
import { ARTIFACT_SCHEMAS, writeReceipt, type ArtifactCommandContext } from "./artifact-receipts.js";
import { scanReferencedHandles } from "./artifact-references.js";
import { intFlag, parseDuration, parseSize, stringFlag } from "../core/args.js";
import { formatBytes, formatCount, formatTable, plural } from "../core/format.js";
import { createProgress } from "../core/progress.js";

/** `artifact list`: newest first, filtered by session, tool or age; a table with a header, totals on stderr. */
export async function runListCommand(c: ArtifactCommandContext): Promise<number> {
  const limit = intFlag(c.args, "limit", 1, 1_000_000) ?? Number.POSITIVE_INFINITY;
  const session = stringFlag(c.args, "session");
  const tool = stringFlag(c.args, "tool");
  const sinceRaw = stringFlag(c.args, "since");
  const since =
    sinceRaw === undefined ? undefined : new Date(Date.now() - parseDuration(sinceRaw, "since")).toISOString();
  const all: ArtifactMeta[] = [];
  for await (const meta of c.store.list()) {
    if (session !== undefined && meta.origin.sessionKey !== session) continue;
    if (tool !== undefined && meta.origin.toolName !== tool) continue;
    if (since !== undefined && meta.createdAt < since) continue;
    all.push(meta);
  }
  all.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.sha256.localeCompare(b.sha256));
  const shown = all.slice(0, limit);
  const totals = { count: all.length, bytes: sum(all, "bytes"), storedBytes: sum(all, "storedBytes") };
  if (c.json) {
    writeReceipt(c.io, ARTIFACT_SCHEMAS.list, {
      agentId: c.agentId,
      filters: { session: session ?? null, tool: tool ?? null, since: since ?? null },
      ...totals,
      artifacts: shown,
    });
    return 0;
  }
  if (shown.length > 0) {
    const rows = shown.map((m) => [
      m.handle,
      formatBytes(m.bytes),
      formatCount(m.lines),
      m.format,
      m.kind,
      m.createdAt.replace(/\.\d+Z$/, "Z"),
      sourceOf(m),
    ]);
    c.io.stdout.write(formatTable(["HANDLE", "SIZE", "LINES", "FORMAT", "KIND", "CREATED", "SOURCE"], rows));
  }
  c.io.stderr.write(
    `${plural(totals.count, "artifact")}, ${formatBytes(totals.bytes)} original, ${formatBytes(totals.storedBytes)} stored${shown.length < all.length ? `, ${shown.length} shown` : ""}\n`,
  );
  return 0;
}

/** Where an artifact came from: tool, session and call, as far as known. */
function sourceOf(m: ArtifactMeta): string {
  const o = m.origin;
  return (
    [o.toolName, o.sessionKey && `session ${o.sessionKey}`, o.toolCallId && `call ${o.toolCallId}`]
      .filter(Boolean)
      .join(" · ") || "-"
  );
}

/** `artifact rm HANDLE...`: exit 2 when none of them existed. */
export async function runRmCommand(c: ArtifactCommandContext): Promise<number> {
  if (c.args.positionals.length === 0) throw new LedgerError("input_invalid", "Expected at least one HANDLE, got none");
  const handles = c.args.positionals.map((h) => formatHandle(parseHandle(h)));
  const removed: string[] = [];
  const missing: string[] = [];
  for (const h of handles) ((await c.store.remove(h)) ? removed : missing).push(h);
  if (c.json) writeReceipt(c.io, ARTIFACT_SCHEMAS.rm, { agentId: c.agentId, removed, missing });
  else {
    for (const h of removed) c.io.stdout.write(`removed ${h}\n`);
    for (const h of missing) c.io.stderr.write(`not found ${h}\n`);
  }
  return removed.length === 0 ? 2 : 0;
}

/**
 * `artifact gc`: removes artifacts no ledger state references, older than
 * `--max-age` and/or beyond `--max-bytes` (default: the configured
 * `limits.maxStoreBytes`), oldest first; `--dry-run` only reports.
 */
export async function runGcCommand(c: ArtifactCommandContext): Promise<number> {
  const maxAgeRaw = stringFlag(c.args, "max-age");
  const maxBytesRaw = stringFlag(c.args, "max-bytes");
  const maxAgeMs = maxAgeRaw === undefined ? undefined : parseDuration(maxAgeRaw, "max-age");
  const maxTotalBytes = maxBytesRaw === undefined ? c.maxStoreBytes : parseSize(maxBytesRaw, "max-bytes");
  const retire = stringFlag(c.args, "retire-gateway");
  if (retire !== undefined) {
    if (!c.gateways)
      throw new LedgerError(
        "input_invalid",
        "Expected a store on a shared bucket for --retire-gateway, got a file store",
      );
    const known = await c.gateways.retire(retire);
    c.io.stderr.write(known ? `retired gateway ${retire}\n` : `gateway ${retire} was not known; nothing retired\n`);
  }
  const referencedScannedAtMs = Date.now();
  const referenced = await scanReferencedHandles(c.agentDir, c.store);
  const progress = createProgress(c.io.stderr);
  const dryRun = c.args.flags["dry-run"] === true;
  const report = await c.store.gc({
    maxAgeMs,
    maxTotalBytes,
    referenced,
    referencedScannedAtMs,
    dryRun,
    onProgress: (p) => progress.update(`gc ${p.phase}`, p.done, p.total),
  });
  progress.end();
  if (c.json) {
    writeReceipt(c.io, ARTIFACT_SCHEMAS.gc, {
      agentId: c.agentId,
      maxAgeMs: maxAgeMs ?? null,
      maxTotalBytes,
      referencedCount: referenced.size,
      ...report,
    });
    return 0;
  }
  const verb = dryRun ? "would remove" : "removed";
  const shared = report.sharedBucket;
  if (shared) {
    for (const b of shared.blockedBy)
      c.io.stderr.write(
        `gateway ${b.id} ${b.reason === "stale" ? `last published ${b.publishedAt}, longer ago than store.s3.gatewayStaleMs` : "never published its references"}: nothing is removed from the shared bucket until it runs \`artifact gc\` or is retired with --retire-gateway ${b.id}\n`,
      );
    c.io.stderr.write(
      `shared bucket: gateway ${shared.gatewayId} published; ${plural(shared.gateways.length, "gateway")} known; ${formatCount(shared.keptForGateways)} unreferenced kept for other gateways or the grace period\n`,
    );
  }
  for (const r of report.removed)
    c.io.stdout.write(`${verb} ${r.handle} ${formatBytes(r.storedBytes)} ${r.reason} (created ${r.createdAt})\n`);
  c.io.stdout.write(
    `${dryRun ? "dry run: " : ""}${verb} ${plural(report.removed.length, "artifact")} (${formatBytes(report.freedStoredBytes)}); kept ${formatCount(report.keptCount)} (${formatBytes(report.keptStoredBytes)}, ${formatCount(report.referencedKept)} referenced); stale temp files ${dryRun ? "found" : "removed"}: ${report.staleTempFiles}\n`,
  );
  return 0;
}

function sum(list: ArtifactMeta[], key: "bytes" | "storedBytes"): number {
  return list.reduce((n, m) => n + m[key], 0);
}
