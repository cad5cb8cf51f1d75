import { randomBytes } from "node:crypto";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../../test/support/temp-dir.js";
import { isLedgerError } from "../../errors.js";
import type { StoreBackend } from "./backend-types.js";
import { createFileBackend } from "./file-backend.js";
import { createBackendStore } from "../store-core.js";
import { createTieredBackend, readSpoolBacklog } from "./tiered-backend.js";

const tmp = useTempDir("ledger-tiered-");

/** A remote on local disk that can be switched off (every call then fails as an unreachable server does). */
function switchableRemote(root: string): StoreBackend & { up: boolean; calls: number } {
  const inner = createFileBackend(root);
  const remote = {
    kind: "test",
    location: "test://remote",
    up: true,
    calls: 0,
    async putOnce(...args: Parameters<StoreBackend["putOnce"]>) {
      return gate(() => inner.putOnce(...args));
    },
    async getRange(...args: Parameters<StoreBackend["getRange"]>) {
      return gate(() => inner.getRange(...args));
    },
    async head(key: string) {
      return gate(() => inner.head(key));
    },
    list: (prefix: string) => inner.list(prefix),
    async delete(key: string) {
      return gate(() => inner.delete(key));
    },
  };
  async function gate<T>(call: () => Promise<T>): Promise<T> {
    remote.calls++;
    if (!remote.up) throw new Error("connect ECONNREFUSED");
    return call();
  }
  return remote;
}

describe("the local spool in front of a remote store", () => {
  it("keeps writing while the remote is down, survives a restart, and uploads everything when it returns", async () => {
    const local = path.join(tmp(), "local");
    const remote = switchableRemote(path.join(tmp(), "remote"));
    remote.up = false;
    const first = createTieredBackend({ root: local, remote });
    const store = createBackendStore(first, { root: local });
    const a = await store.stash("alpha ".repeat(100));
    const b = await store.stash("beta ".repeat(100));
    expect(await store.readText(a.handle)).toBe("alpha ".repeat(100));
    expect((await first.drain()).objects).toBe(4);
    expect(readSpoolBacklog(local).objects).toBe(4);
    await first.close();

    remote.up = true;
    const second = createTieredBackend({ root: local, remote });
    expect((await second.drain()).objects).toBe(0);
    expect(readSpoolBacklog(local)).toEqual({ objects: 0, bytes: 0 });
    const elsewhere = createBackendStore(createTieredBackend({ root: path.join(tmp(), "other"), remote }), {
      root: path.join(tmp(), "other"),
    });
    expect(await elsewhere.readText(b.handle)).toBe("beta ".repeat(100));
    await second.close();
  });

  it("refuses a write loudly with store_full when the spool is full, and accepts again once it drains", async () => {
    const local = path.join(tmp(), "local");
    const remote = switchableRemote(path.join(tmp(), "remote"));
    remote.up = false;
    const tiered = createTieredBackend({ root: local, remote, spoolBytes: 4_000 });
    const store = createBackendStore(tiered, { root: local });
    await store.stash("x".repeat(1_000) + "1");
    let refused: unknown;
    try {
      for (let n = 2; n < 20; n++) await store.stash(`${n}`.repeat(1_000));
    } catch (err) {
      refused = err;
    }
    expect(isLedgerError(refused, "store_full")).toBe(true);
    expect((refused as Error).message).toMatch(/upload spool of test:\/\/remote .* still waiting to upload/);
    remote.up = true;
    expect((await tiered.drain()).objects).toBe(0);
    expect((await store.stash("after the drain")).created).toBe(true);
    await tiered.close();
  });

  it("does not ask the remote again for a moment after it failed", async () => {
    const local = path.join(tmp(), "local");
    const remote = switchableRemote(path.join(tmp(), "remote"));
    remote.up = false;
    const tiered = createTieredBackend({ root: local, remote, remoteCooldownMs: 60_000 });
    expect(await tiered.head("blobs/sha256/00/00/x")).toBeUndefined();
    const calls = remote.calls;
    for (let i = 0; i < 5; i++) expect(await tiered.head(`blobs/sha256/00/00/y${i}`)).toBeUndefined();
    expect(remote.calls).toBe(calls);
    await tiered.close();
  });

  it("says once that uploads fail and once that they caught up, across many failed and good passes", async () => {
    const local = path.join(tmp(), "local");
    const remote = switchableRemote(path.join(tmp(), "remote"));
    remote.up = false;
    const states: Array<{ ok: boolean; error?: string }> = [];
    const tiered = createTieredBackend({ root: local, remote, onUploadState: (st) => states.push(st) });
    const store = createBackendStore(tiered, { root: local });
    for (let i = 0; i < 3; i++) {
      await store.stash(`during the outage ${i}`);
      await tiered.drain();
    }
    remote.up = true;
    for (let i = 0; i < 3; i++) {
      await store.stash(`after the outage ${i}`);
      expect((await tiered.drain()).objects).toBe(0);
    }
    expect(states.map((st) => st.ok)).toEqual([false, true]);
    expect(states[0]?.error).toContain("ECONNREFUSED");
    await tiered.close();
  });

  it("uploads what a previous run left in the spool from its start, without a write", async () => {
    const local = path.join(tmp(), "local");
    const remote = switchableRemote(path.join(tmp(), "remote"));
    remote.up = false;
    const first = createTieredBackend({ root: local, remote });
    await createBackendStore(first, { root: local }).stash("left in the spool");
    await first.close();
    remote.up = true;
    const restarted = createTieredBackend({ root: local, remote });
    for (let i = 0; i < 100 && readSpoolBacklog(local).objects > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(readSpoolBacklog(local).objects).toBe(0);
    await restarted.close();
  });

  it("keeps a gateway that only reads within cacheBytes", async () => {
    const remote = switchableRemote(path.join(tmp(), "remote"));
    const writer = createBackendStore(remote, { root: path.join(tmp(), "writer") });
    const texts = Array.from({ length: 20 }, (_, i) => `${i} ${randomBytes(3_000).toString("base64")}`);
    const handles = await Promise.all(texts.map(async (t) => (await writer.stash(t)).handle));
    const local = path.join(tmp(), "reader");
    const cacheBytes = 20_000;
    const tiered = createTieredBackend({ root: local, remote, cacheBytes });
    const reader = createBackendStore(tiered, { root: local, textCacheBytes: 0 });
    for (const [i, h] of handles.entries()) expect(await reader.readText(h)).toBe(texts[i]);
    const cached = async () => {
      let total = 0;
      for (const f of await readdir(local, { recursive: true, withFileTypes: true }))
        if (f.isFile() && !f.parentPath.includes("incoming"))
          total += (await stat(path.join(f.parentPath, f.name))).size;
      return total;
    };
    // Closing waits for the evictions under way: the bound holds then, give or take what the last one began after.
    await tiered.close();
    const total = await cached();
    expect(total).toBeLessThanOrEqual(cacheBytes * 1.25 + 5_000);
    expect(total).toBeGreaterThan(0);
  });
});
