import { LedgerError } from "../errors.js";
import type { GatewayRegistry } from "./gateway-registry.js";
import { sharedGcVerdict } from "./shared-gc-decision.js";
import type { GcOptions, GcReport } from "./store-types.js";

/** What a gc of a bucket shared by several gateways needs. */
export interface SharedGcContext {
  registry: GatewayRegistry;
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
  const report = await ctx.gc({
    ...options,
    mayRemove: (handle, modifiedMs) => {
      // A reuse by some gateway counts as a write: that gateway has not spoken about the blob since.
      const lastWrite = Math.max(modifiedMs, touches.get(handle.slice(-64)) ?? 0);
      const ok = verdict.mayRemove(handle, lastWrite) && (options.mayRemove?.(handle, modifiedMs) ?? true);
      if (!ok) keptForGateways++;
      return ok;
    },
  });
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
