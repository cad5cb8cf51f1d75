import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { LedgerError } from "../../errors.js";
import { ensureDir } from "../../fs/atomic-write.js";
import type { ObjectInfo, StoreBackend } from "../backends/backend-types.js";
import type { GatewayView } from "./shared-gc-decision.js";

/** File in a store's local folder holding this gateway's id, generated once. */
export const GATEWAY_ID_FILE = "gateway-id";
/** Key prefix, inside a shared store, of every gateway's registration and reference sets. */
export const GATEWAYS_PREFIX = "gateways/";

const ID = /^[0-9a-f]{16}$/;
const PUBLICATION = /^references-(\d{13})\.json$/;
const JOINED = "joined.json";
const TOUCHED = "touched/";
const TOUCH = /^([0-9a-f]{64})-(\d{13})$/;

/** One gateway's voice in a shared store: who it is, what it cites, what the others said. */
export interface GatewayRegistry {
  /** This gateway's id (read from, or on first use written to, its local folder). */
  id(): Promise<string>;
  /** Makes this gateway known to every other gc of the store: from now on it must publish before anything goes. */
  register(): Promise<void>;
  /**
   * Publishes the handles this gateway cites, as scanned from `scanStartedMs` (local clock) on; older publications
   * of it are removed. Returns the publication's time on the bucket's clock.
   */
  publish(handles: ReadonlySet<string>, scanStartedMs: number): Promise<number>;
  /**
   * Records in the bucket that this gateway just reused the stored blob `hex` (a stash that found it there and
   * wrote nothing): until its next publication names it, the touch dates the blob's last write for every gc.
   */
  touch(hex: string): Promise<void>;
  /** Every known gateway with its latest publication. */
  readAll(): Promise<GatewayView[]>;
  /** The latest touch of each touched blob (by sha256 hex), epoch ms on the bucket's clock. */
  readTouches(): Promise<Map<string, number>>;
  /** Forgets gateway `id` (its registration and publications); false when it was not known. */
  retire(id: string): Promise<boolean>;
}

/** Options of {@link createGatewayRegistry}. */
export interface GatewayRegistryOptions {
  /**
   * The shared store's backend, contacted directly (never through a spool: a publication is only worth what is
   * already in the bucket).
   */
  backend: StoreBackend;
  /** The store's local folder, where the gateway id lives. */
  root: string;
  /** Touches younger than this before a publication's scan are kept (see `SharedGcInput.citeLagMs`). @default 0 */
  citeLagMs?: number;
}

/** Creates the registry of the gateways sharing `backend`. */
export function createGatewayRegistry(options: GatewayRegistryOptions): GatewayRegistry {
  const { backend, root, citeLagMs = 0 } = options;
  let cached: string | undefined;

  async function id(): Promise<string> {
    if (cached) return cached;
    const file = path.join(root, GATEWAY_ID_FILE);
    const text = await fsp.readFile(file, "utf8").catch(() => undefined);
    if (text !== undefined && ID.test(text.trim())) return (cached = text.trim());
    await ensureDir(root);
    const fresh = randomBytes(8).toString("hex");
    // Exclusive create: two processes of one gateway starting together agree on the first id written.
    await fsp.writeFile(file, `${fresh}\n`, { flag: "wx", mode: 0o600 }).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
    const settled = (await fsp.readFile(file, "utf8")).trim();
    if (!ID.test(settled))
      throw new LedgerError(
        "state_corrupt",
        `Expected a 16-hex gateway id in ${file}, got ${JSON.stringify(settled.slice(0, 40))}`,
      );
    return (cached = settled);
  }

  async function register(): Promise<void> {
    const me = await id();
    await backend.putOnce(`${GATEWAYS_PREFIX}${me}/${JOINED}`, { bytes: Buffer.from(`{"gatewayId":"${me}"}\n`) });
  }

  async function publish(handles: ReadonlySet<string>, scanStartedMs: number): Promise<number> {
    const me = await id();
    await register();
    const now = Date.now();
    // The set is as old as its scan: the reader dates it back by this lead, so a blob written during the scan is
    // never taken as one this gateway has seen.
    const scanLeadMs = Math.max(0, now - scanStartedMs);
    const body = JSON.stringify({ gatewayId: me, scanLeadMs, handles: [...handles].sort() });
    const key = `${GATEWAYS_PREFIX}${me}/references-${String(Math.trunc(now)).padStart(13, "0")}.json`;
    await backend.putOnce(key, { bytes: Buffer.from(body) });
    const written = await backend.head(key);
    const coveredMs = (written?.modifiedMs ?? now) - scanLeadMs - CLOCK_GRAIN_MS - citeLagMs;
    for await (const obj of backend.list(`${GATEWAYS_PREFIX}${me}/`)) {
      const name = obj.key.slice(obj.key.lastIndexOf("/") + 1);
      if (PUBLICATION.test(name) && obj.key < key) await backend.delete(obj.key);
      // A touch before the scan began is answered by this set: the blob is in it if this gateway still cites it.
      else if (obj.key.includes(`/${TOUCHED}`) && obj.modifiedMs < coveredMs) await backend.delete(obj.key);
    }
    return written?.modifiedMs ?? now;
  }

  async function touch(hex: string): Promise<void> {
    const me = await id();
    await backend.putOnce(`${GATEWAYS_PREFIX}${me}/${TOUCHED}${hex}-${String(Date.now()).padStart(13, "0")}`, {
      bytes: Buffer.alloc(0),
    });
  }

  async function readTouches(): Promise<Map<string, number>> {
    const latest = new Map<string, number>();
    for await (const obj of backend.list(GATEWAYS_PREFIX)) {
      const m = obj.key.includes(`/${TOUCHED}`) ? TOUCH.exec(obj.key.slice(obj.key.lastIndexOf("/") + 1)) : null;
      if (m?.[1]) latest.set(m[1], Math.max(latest.get(m[1]) ?? 0, obj.modifiedMs + CLOCK_GRAIN_MS));
    }
    return latest;
  }

  async function readAll(): Promise<GatewayView[]> {
    const latest = new Map<string, ObjectInfo | undefined>();
    for await (const obj of backend.list(GATEWAYS_PREFIX)) {
      const [gid, name = ""] = obj.key.slice(GATEWAYS_PREFIX.length).split("/");
      if (!gid || !ID.test(gid)) continue;
      const previous = latest.get(gid);
      if (PUBLICATION.test(name)) latest.set(gid, previous === undefined || previous.key < obj.key ? obj : previous);
      else if (!latest.has(gid)) latest.set(gid, undefined);
    }
    const views: GatewayView[] = [];
    for (const [gid, obj] of latest) {
      if (obj === undefined) {
        views.push({ id: gid, handles: new Set() });
        continue;
      }
      const bytes = await backend.getRange(obj.key, 0);
      // Removed between list and read: a newer one replaced it, so read again rather than trust a guess.
      if (!bytes) return readAll();
      views.push(parsePublication(gid, obj, bytes));
    }
    return views;
  }

  async function retire(gid: string): Promise<boolean> {
    if (!ID.test(gid))
      throw new LedgerError("input_invalid", `Expected a 16-hex gateway id, got ${JSON.stringify(gid)}`);
    let found = false;
    for await (const obj of backend.list(`${GATEWAYS_PREFIX}${gid}/`)) found = (await backend.delete(obj.key)) || found;
    return found;
  }

  return { id, register, publish, touch, readAll, readTouches, retire };
}

/** Object stores date objects to the second: a publication counts from the start of its second, minus that second. */
const CLOCK_GRAIN_MS = 1_000;

/**
 * A publication's view, dated on the bucket's clock (its object's time, so gateways' own clocks never matter) back
 * by its scan's lead and the clock grain.
 */
function parsePublication(gid: string, obj: ObjectInfo, bytes: Buffer): GatewayView {
  let parsed: { handles?: unknown; scanLeadMs?: unknown } | undefined;
  try {
    parsed = JSON.parse(bytes.toString("utf8")) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const handles = parsed?.handles;
  const lead = typeof parsed?.scanLeadMs === "number" && parsed.scanLeadMs >= 0 ? parsed.scanLeadMs : undefined;
  // An unreadable set says nothing: the gateway counts as never having published, which blocks every removal.
  if (lead === undefined || !Array.isArray(handles) || !handles.every((h) => typeof h === "string"))
    return { id: gid, handles: new Set() };
  return { id: gid, publishedMs: obj.modifiedMs - lead - CLOCK_GRAIN_MS, handles: new Set(handles as string[]) };
}
