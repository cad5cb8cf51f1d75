import { LedgerError } from "../../errors.js";
import type { StoreBackend } from "../backends/backend-types.js";

/** Key of the lock one gc of a shared store holds while it removes anything. */
export const GC_LOCK_KEY = "gc/lock.json";
/** Key prefix of the removals a gc announced and has not finished. */
export const GC_INTENTS_PREFIX = "gc/intents/";

/**
 * How long a gc may remove things after taking the lock (it stops removing after this, by its own clock), and so
 * how long a writer must respect an announcement: one older than three leases (by the bucket's clock against the
 * writer's) belongs to a gc that died.
 */
export const GC_LEASE_MS = 10 * 60_000;

/** A held gc lock. */
export interface HeldGcLock {
  /** True once the lease ran out: the holder must not remove anything more. */
  expired(): boolean;
  release(): Promise<void>;
}

/**
 * The two sides of one rule that keeps a reused blob: a gc announces what it
 * is about to remove (durably, before it reads the touches a last time), and
 * a writer that found a blob stored touches it (durably) and then looks for
 * such an announcement. Of the two writes, one comes first: either the gc's
 * last read sees the touch and keeps the blob, or the writer sees the
 * announcement and keeps its own copy (see the operator guide's proof).
 */
export interface GcGuard {
  /** Takes the store's gc lock, or throws `lock_timeout` naming its live holder; `bucketNowMs` dates a dead one. */
  lock(holder: string, bucketNowMs: number): Promise<HeldGcLock>;
  /** Announces the removal of `hexes`; the returned function withdraws the announcement. */
  announce(holder: string, hexes: readonly string[]): Promise<() => Promise<void>>;
  /** True when a live announcement names `hex` (a writer then must not count on the stored blob). */
  announced(hex: string): Promise<boolean>;
}

/** Creates the gc guard of the store on `backend` (contacted directly, never through a spool). */
export function createGcGuard(backend: StoreBackend, now: () => number = Date.now): GcGuard {
  const bodies = new Map<string, (hex: string) => boolean>();

  async function lock(holder: string, bucketNowMs: number): Promise<HeldGcLock> {
    const takenAt = now();
    const body = Buffer.from(JSON.stringify({ holder, takenAt: new Date(takenAt).toISOString() }));
    if (!(await backend.putOnce(GC_LOCK_KEY, { bytes: body }))) {
      const there = await backend.head(GC_LOCK_KEY);
      const deadBefore = bucketNowMs - 3 * GC_LEASE_MS;
      if (there && there.modifiedMs > deadBefore) {
        const who = (await backend.getRange(GC_LOCK_KEY, 0))?.toString("utf8").slice(0, 200) ?? "";
        throw new LedgerError(
          "lock_timeout",
          `Expected no other gc on ${backend.location}, got one running since ${new Date(there.modifiedMs).toISOString()} (${who}); run gc again when it ends (a lock older than ${(3 * GC_LEASE_MS) / 60_000} minutes is taken over)`,
        );
      }
      // The holder died: its lease ran out long ago, so it removes nothing more.
      await backend.delete(GC_LOCK_KEY);
      if (!(await backend.putOnce(GC_LOCK_KEY, { bytes: body })))
        throw new LedgerError(
          "lock_timeout",
          `Expected to take the gc lock of ${backend.location}, got another gc first`,
        );
    }
    return {
      expired: () => now() - takenAt > GC_LEASE_MS,
      release: async () => {
        await backend.delete(GC_LOCK_KEY);
      },
    };
  }

  async function announce(holder: string, hexes: readonly string[]): Promise<() => Promise<void>> {
    const key = `${GC_INTENTS_PREFIX}${String(Math.trunc(now())).padStart(13, "0")}-${holder}.json`;
    await backend.putOnce(key, { bytes: Buffer.from(JSON.stringify({ holder, hexes })) });
    return async () => {
      await backend.delete(key);
    };
  }

  async function announced(hex: string): Promise<boolean> {
    const deadBefore = now() - 3 * GC_LEASE_MS;
    for await (const obj of backend.list(GC_INTENTS_PREFIX)) {
      if (obj.modifiedMs < deadBefore) continue;
      let names = bodies.get(obj.key);
      if (!names) {
        const bytes = await backend.getRange(obj.key, 0);
        // Withdrawn between the listing and the read: that gc is done with it.
        if (!bytes) continue;
        names = namesOf(bytes);
        bodies.set(obj.key, names);
      }
      if (names(hex)) return true;
    }
    return false;
  }

  return { lock, announce, announced };
}

/** Whether an announcement names a hex; an unreadable one names everything (a writer then keeps its own copy). */
function namesOf(bytes: Buffer): (hex: string) => boolean {
  try {
    const parsed = JSON.parse(bytes.toString("utf8")) as { hexes?: unknown };
    if (Array.isArray(parsed.hexes) && parsed.hexes.every((h) => typeof h === "string")) {
      const set = new Set(parsed.hexes as string[]);
      return (hex) => set.has(hex);
    }
  } catch {
    // Unreadable: names everything.
  }
  return () => true;
}
