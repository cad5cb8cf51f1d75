import { randomBytes } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type OpenedStore, type StoreBackendSettings } from "../../src/artifacts/index.js";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { blobKey } from "../../src/artifacts/format/store-keys.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { useSharedTempDir } from "../support/temp-dir.js";

const output = (label: string): string =>
  Array.from({ length: 500 }, (_, i) => `${label} ${i} ${randomBytes(8).toString("hex")}`).join("\n");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("gc of a bucket several gateways share", () => {
  const rgw = useCephRgw("shared gc");
  const tmp = useSharedTempDir("ledger-s3-shared-gc-");
  if (!rgw) return;

  const settings = (prefix: string, gcGraceMs: number): StoreBackendSettings =>
    rgw().settings(prefix, { s3: { gcGraceMs } });
  const gateway = (name: string, s: StoreBackendSettings): OpenedStore => rgw().gateway(path.join(tmp(), name), s);
  const inBucket = async (prefix: string, handle: string): Promise<boolean> =>
    (await createS3Backend(rgw().options(`${prefix}/agents/main`)).head(blobKey(handle.slice(-64)))) !== undefined;
  /** Stashes through `gw` and waits until the object is in the bucket. */
  const stashed = async (gw: OpenedStore, text: string): Promise<string> => {
    const { handle } = await gw.store.stash(text);
    expect((await gw.spool?.drain())?.objects).toBe(0);
    return handle;
  };

  it("removes only what neither gateway cites, and only once both have published", async () => {
    const prefix = `two-${randomBytes(4).toString("hex")}`;
    const one = gateway("two-1", settings(prefix, 1_000));
    const two = gateway("two-2", settings(prefix, 1_000));
    const sharedText = output("shared");
    const onlyOne = await stashed(one, output("one"));
    const shared = await stashed(one, sharedText);
    const orphan = await stashed(one, output("orphan"));
    const onlyTwo = await stashed(two, output("two"));
    expect(await stashed(two, sharedText)).toBe(shared);
    await sleep(2_500);

    // Gateway two registered when it stashed but has not published: it may cite anything, so nothing goes.
    const first = await one.store.gc({ maxAgeMs: 0, referenced: new Set([onlyOne, shared]) });
    expect(first.removed).toEqual([]);
    expect(first.sharedBucket?.blockedBy.map((b) => b.reason)).toEqual(["never-published"]);
    const idTwo = await two.gateways?.id();
    expect(first.sharedBucket?.blockedBy[0]?.id).toBe(idTwo);

    // Now both have spoken: only the blob neither cites goes, whichever gateway runs gc.
    const second = await two.store.gc({ maxAgeMs: 0, referenced: new Set([onlyTwo, shared]) });
    expect(second.sharedBucket?.blockedBy).toEqual([]);
    expect(second.removed.map((r) => r.handle)).toEqual([orphan]);
    expect(await inBucket(prefix, orphan)).toBe(false);
    for (const h of [onlyOne, onlyTwo, shared]) expect(await inBucket(prefix, h)).toBe(true);
    expect(await one.store.readText(onlyOne)).toContain("one 0 ");
    expect((await two.store.readText(shared)) === sharedText).toBe(true);

    const third = await one.store.gc({ maxAgeMs: 0, referenced: new Set([onlyOne, shared]) });
    // Gateway one may still hold the orphan in its local cache; what either gateway cites stays.
    expect(third.removed.map((r) => r.handle).filter((h) => h !== orphan)).toEqual([]);
    for (const h of [onlyOne, onlyTwo, shared]) expect(await inBucket(prefix, h)).toBe(true);
    await one.spool?.close();
    await two.spool?.close();
  });

  it("keeps an old blob another gateway reused after its last publication", async () => {
    const prefix = `reuse-${randomBytes(4).toString("hex")}`;
    const one = gateway("reuse-1", settings(prefix, 1_000));
    const two = gateway("reuse-2", settings(prefix, 1_000));
    const text = output("reused");
    const old = await stashed(one, text);
    await stashed(two, output("two's own"));
    await sleep(2_500);
    // Two has spoken after the blob's write, and does not cite it.
    await two.store.gc({ maxAgeMs: 0, referenced: new Set() });

    // Gateway two finds the blob already stored: nothing is written to it, but two may cite it from now on.
    expect(await two.store.stash(text)).toMatchObject({ handle: old, created: false });
    await sleep(500);
    const report = await one.store.gc({ maxAgeMs: 0, referenced: new Set() });
    expect(report.sharedBucket?.blockedBy).toEqual([]);
    expect(report.removed.map((r) => r.handle)).not.toContain(old);
    expect(await inBucket(prefix, old)).toBe(true);
    await one.spool?.close();
    await two.spool?.close();
  });

  it("keeps every blob while a known gateway never published, until the operator retires it", async () => {
    const prefix = `silent-${randomBytes(4).toString("hex")}`;
    const active = gateway("silent-a", settings(prefix, 1_000));
    const silent = gateway("silent-b", settings(prefix, 1_000));
    const orphan = await stashed(active, output("orphan"));
    await stashed(silent, output("silent's own"));
    await sleep(2_500);

    const blocked = await active.store.gc({ maxAgeMs: 0, referenced: new Set() });
    expect(blocked.removed).toEqual([]);
    expect(blocked.sharedBucket?.blockedBy).toEqual([
      { id: await silent.gateways?.id(), reason: "never-published", publishedAt: null },
    ]);
    expect(await inBucket(prefix, orphan)).toBe(true);

    expect(await active.gateways?.retire((await silent.gateways?.id()) ?? "")).toBe(true);
    const after = await active.store.gc({ maxAgeMs: 0, referenced: new Set() });
    expect(after.sharedBucket?.blockedBy).toEqual([]);
    expect(after.removed.map((r) => r.handle)).toContain(orphan);
    expect(await inBucket(prefix, orphan)).toBe(false);
    await active.spool?.close();
    await silent.spool?.close();
  });

  it("keeps a just-stashed unreferenced blob within the grace period, and removes it after", async () => {
    const prefix = `grace-${randomBytes(4).toString("hex")}`;
    const gw = gateway("grace", settings(prefix, 60_000));
    const fresh = await stashed(gw, output("fresh"));
    await sleep(2_500);
    const within = await gw.store.gc({ maxAgeMs: 0, referenced: new Set() });
    expect(within.removed).toEqual([]);
    expect(within.sharedBucket?.keptForGateways).toBe(1);
    expect(await inBucket(prefix, fresh)).toBe(true);

    const noGrace = gateway("grace", settings(prefix, 0));
    const past = await noGrace.store.gc({ maxAgeMs: 0, referenced: new Set() });
    expect(past.removed.map((r) => r.handle)).toEqual([fresh]);
    expect(await inBucket(prefix, fresh)).toBe(false);
    await gw.spool?.close();
    await noGrace.spool?.close();
  });
});
