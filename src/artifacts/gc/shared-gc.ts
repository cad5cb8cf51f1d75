import { LedgerError } from "../../errors.js";
import type { GatewayRegistry } from "./gateway-registry.js";
import type { GcGuard } from "./gc-guard.js";
import { sharedGcVerdict } from "./shared-gc-decision.js";
import type { GcOptions, GcReport } from "../store/store-types.js";

/** What a gc of a bucket shared by several gateways needs. */
export interface SharedGcContext {
  registry: GatewayRegistry;
  /** The store's gc lock and removal announcements. */
  guard: GcGuard;
  /** The store's own gc over the bucket (candidates, removal, the local gc epoch). */
  gc: (options: GcOptions) => Promise<GcReport>;
  graceMs: number;
  staleMs: number;
  citeLagMs: number;
}

/**
 * Garbage-collects a shared bucket: publishes this gateway's references
 * first (also on a dry run: publishing only ever protects), reads every known
 * gateway's latest set, and lets the store's gc remove only what
 * {@link sharedGcVerdict} allows.
 */
export async function runSharedGc(ctx: SharedGcContext, options: GcOptions): Promise<GcReport> {
  const { referenced } = options;
  if (!referenced)
    throw new LedgerError(
      "input_invalid",
      "Expected this gateway's referenced handles for a gc of a shared bucket, got none: an empty set would tell every other gateway it cites nothing",
    );
  const scannedAt = options.referencedScannedAtMs ?? Date.now();
  const publishedMs = await ctx.registry.publish(referenced, scannedAt);
  const gatewayId = await ctx.registry.id();
  const gateways = await ctx.registry.readAll();
  const touches = await ctx.registry.readTouches();
  // Dated on the bucket's clock, like every publication and blob it is compared with.
  const now = Math.max(publishedMs, ...gateways.map((g) => g.publishedMs ?? 0));
  const verdict = sharedGcVerdict({
    now,
    graceMs: ctx.graceMs,
    staleMs: ctx.staleMs,
    citeLagMs: ctx.citeLagMs,
    gateways,
  });
  let keptForGateways = 0;
  // A reuse by some gateway counts as a write: that gateway has not spoken about the blob since.
  const mayGo = (seen: Map<string, number>, handle: string, modifiedMs: number) =>
    verdict.mayRemove(handle, Math.max(modifiedMs, seen.get(handle.slice(-64)) ?? 0));
  const held = options.dryRun ? undefined : await ctx.guard.lock(gatewayId, now);
  let report: GcReport;
  try {
    report = await ctx.gc({
      ...options,
      mayRemove: (handle, modifiedMs) => {
        const ok = mayGo(touches, handle, modifiedMs) && (options.mayRemove?.(handle, modifiedMs) ?? true);
        if (!ok) keptForGateways++;
        return ok;
      },
      // The last look: announced first, then the touches read again. A writer that touched a blob before this read
      // is seen here; one that touches it after finds the announcement and keeps its own copy.
      beforeRemove: async (batch) => {
        if (held?.expired()) return { keep: new Set(batch.map((b) => b.handle)), done: async () => undefined };
        const withdraw = await ctx.guard.announce(
          gatewayId,
          batch.map((b) => b.handle.slice(-64)),
        );
        try {
          const latest = await ctx.registry.readTouches();
          const keep = new Set(batch.filter((b) => !mayGo(latest, b.handle, b.modifiedMs)).map((b) => b.handle));
          keptForGateways += keep.size;
          return { keep, done: withdraw };
        } catch (err) {
          await withdraw().catch(() => undefined);
          throw err;
        }
      },
    });
  } finally {
    await held?.release().catch(() => undefined);
  }
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    ...report,
    sharedBucket: {
      gatewayId,
      gateways: gateways.map((g) => ({ id: g.id, publishedAt: iso(g.publishedMs), handles: g.handles.size })),
      blockedBy: verdict.blockedBy.map((b) => ({ id: b.id, reason: b.reason, publishedAt: iso(b.publishedMs) })),
      keptForGateways,
      graceMs: ctx.graceMs,
      staleMs: ctx.staleMs,
    },
  };
}
