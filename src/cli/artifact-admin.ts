import { formatHandle, parseHandle } from "../artifacts/handle.js";
import type { ArtifactMeta } from "../artifacts/meta.js";
import { LedgerError } from "../errors.js";
import { ARTIFACT_SCHEMAS, writeReceipt, type ArtifactCommandContext } from "./artifact-receipts.js";
import { scanReferencedHandles } from "./artifact-references.js";
import { intFlag, parseDuration, parseSize, stringFlag } from "./args.js";
import { createProgress } from "./ops/progress.js";

/** `artifact list`: newest first. */
export async function runListCommand(c: ArtifactCommandContext): Promise<number> {
  const limit = intFlag(c.args, "limit", 1, 1_000_000) ?? Number.POSITIVE_INFINITY;
  const all: ArtifactMeta[] = [];
  for await (const meta of c.store.list()) all.push(meta);
  all.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.sha256.localeCompare(b.sha256));
  const shown = all.slice(0, limit);
  const totals = { count: all.length, bytes: sum(all, "bytes"), storedBytes: sum(all, "storedBytes") };
  if (c.json) {
    writeReceipt(c.io, ARTIFACT_SCHEMAS.list, { agentId: c.agentId, ...totals, artifacts: shown });
    return 0;
  }
  for (const m of shown) {
    c.io.stdout.write(`${m.handle}  ${String(m.bytes).padStart(10)} B  ${String(m.lines).padStart(7)} lines  ${m.format.padEnd(8)} ${m.kind.padEnd(12)} ${m.createdAt}  ${m.origin.toolName ?? ""}\n`);
  }
  c.io.stderr.write(`${totals.count} artifacts, ${totals.bytes} bytes (${totals.storedBytes} stored)${shown.length < all.length ? `, ${shown.length} shown` : ""}\n`);
  return 0;
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
  const referenced = await scanReferencedHandles(c.agentDir);
  const progress = createProgress(c.io.stderr);
  const dryRun = c.args.flags["dry-run"] === true;
  const report = await c.store.gc({ maxAgeMs, maxTotalBytes, referenced, dryRun, onProgress: (p) => progress.update(`gc ${p.phase}`, p.done, p.total) });
  progress.end();
  if (c.json) {
    writeReceipt(c.io, ARTIFACT_SCHEMAS.gc, { agentId: c.agentId, maxAgeMs: maxAgeMs ?? null, maxTotalBytes, referencedCount: referenced.size, ...report });
    return 0;
  }
  const verb = dryRun ? "would remove" : "removed";
  for (const r of report.removed) c.io.stdout.write(`${verb} ${r.handle} ${r.storedBytes} B ${r.reason} (created ${r.createdAt})\n`);
  c.io.stdout.write(
    `${dryRun ? "dry run: " : ""}${verb} ${report.removed.length} artifacts (${report.freedStoredBytes} bytes); kept ${report.keptCount} (${report.keptStoredBytes} bytes, ${report.referencedKept} referenced); stale temp files ${dryRun ? "found" : "removed"}: ${report.staleTempFiles}\n`,
  );
  return 0;
}

function sum(list: ArtifactMeta[], key: "bytes" | "storedBytes"): number {
  return list.reduce((n, m) => n + m[key], 0);
}
