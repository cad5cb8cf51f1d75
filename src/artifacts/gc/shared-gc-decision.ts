/**
 * Who may veto a removal from a bucket several gateways share, decided from
 * what each gateway published (pure: no I/O, no clock).
 *
 * A blob may go only when every known gateway has spoken about it: no
 * published reference set names it, every gateway published after the blob's
 * last write, and the blob is older than the grace period. A known gateway
 * that never published, or not within the staleness window, may cite
 * anything: it blocks every removal until it publishes or is retired.
 */

/** One gateway as the bucket knows it. */
export interface GatewayView {
  id: string;
  /** When its latest reference set was published, epoch ms; undefined when it registered but never published. */
  publishedMs?: number;
  /** The handles its latest set names (empty when it never published). */
  handles: ReadonlySet<string>;
}

/** A gateway that blocks every removal, and why. */
export interface GatewayBlock {
  id: string;
  reason: "never-published" | "stale";
  publishedMs?: number;
}

/** What {@link sharedGcVerdict} needs. */
export interface SharedGcInput {
  now: number;
  /** A blob written less than this long ago is never removed. */
  graceMs: number;
  /** A gateway whose latest publication is older than this blocks every removal. */
  staleMs: number;
  /**
   * How long after a stash its handle may take to appear in the citing gateway's state (a turn still running):
   * a publication speaks only for blobs written at least this long before it.
   */
  citeLagMs: number;
  gateways: readonly GatewayView[];
}

/** The verdict: who blocks everything, and the per-blob test when nobody does. */
export interface SharedGcVerdict {
  blockedBy: GatewayBlock[];
  /**
   * True when the blob `handle`, last written at `modifiedMs`, may be removed. Always false while `blockedBy` is
   * non-empty.
   */
  mayRemove(handle: string, modifiedMs: number): boolean;
}

/** Decides, from the gateways' publications, which blobs a gc of a shared bucket may remove. */
export function sharedGcVerdict(input: SharedGcInput): SharedGcVerdict {
  const { now, graceMs, staleMs, citeLagMs, gateways } = input;
  const blockedBy: GatewayBlock[] = [];
  for (const g of gateways) {
    if (g.publishedMs === undefined) blockedBy.push({ id: g.id, reason: "never-published" });
    else if (now - g.publishedMs > staleMs) blockedBy.push({ id: g.id, reason: "stale", publishedMs: g.publishedMs });
  }
  // Without any gateway's word there is nobody to ask: nothing goes.
  const silent = gateways.length === 0;
  return {
    blockedBy,
    mayRemove(handle, modifiedMs) {
      if (silent || blockedBy.length > 0) return false;
      if (!(now - modifiedMs >= graceMs)) return false;
      return gateways.every(
        (g) => g.publishedMs !== undefined && g.publishedMs - citeLagMs > modifiedMs && !g.handles.has(handle),
      );
    },
  };
}
