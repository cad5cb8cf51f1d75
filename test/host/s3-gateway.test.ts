/**
 * A real 2026.9.6 gateway whose artifacts live in a bucket on a throwaway Ceph RGW: the fetch-back scenario
 * byte-exact, then the same gateway restarted on an empty local store fetches its old handle from the bucket.
 * The 60 s outage, the second gateway on the bucket and gc run in `s3-gateway-outage.test.ts`
 * (`npm run test:s3-gateway`, not in `npm test`).
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { useCephRgw } from "../support/s3-fixture.js";
import {
  bucketView,
  capturedHandles,
  fetchThroughGateway,
  fetchTurnReply,
  restartOnEmptyStore,
  startS3Gateway,
} from "./s3-gateway.js";
import { fetchBack, fetchBackResults, FETCH_FROM, FETCH_TO, numberedFile } from "./scenarios/fetch-back.js";
import type { SharedRig } from "./scenarios/shared-rig.js";
import { pollUntil } from "./settle.js";

describe("a 2026.9.6 gateway storing its artifacts in a bucket", () => {
  const rgw = useCephRgw("gateway on S3");
  if (!rgw) return;
  let shared: SharedRig | undefined;
  afterAll(async () => shared?.close(), 120_000);

  it("fetches lines byte-exact, and again from the bucket after a restart on an empty local store", async () => {
    const started = Date.now();
    const prefix = `gw-${randomBytes(4).toString("hex")}`;
    shared = await startS3Gateway(rgw(), prefix);
    const firstStartMs = shared.rig.gateway.startMs;
    const session = await shared.open(fetchBack.name);
    await fetchBack.run(session);
    const result = fetchBackResults.get(session.sessionKey);
    expect(result?.linesExact).toBe(FETCH_TO - FETCH_FROM + 1);
    const handle = result?.handle as string;

    const handles = await capturedHandles(shared.rig.env);
    expect(handles).toContain(handle);
    const bucket = bucketView(rgw(), prefix);
    const missing = await pollUntil(
      () => bucket.missing(handles),
      (m) => m.length === 0,
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(missing, "every capture reached the bucket before the local store is emptied").toEqual([]);

    const restartedAt = Date.now();
    await restartOnEmptyStore(shared);
    session.setScript((request) => fetchTurnReply(request) ?? { text: "OK." });
    const wants = handles.map((h) => ({ handle: h, from: FETCH_FROM, to: FETCH_TO }));
    const got = await fetchThroughGateway(session, wants);
    const expected = numberedFile()
      .split("\n")
      .slice(FETCH_FROM - 1, FETCH_TO)
      .join("\n");
    expect(got.get(handle)).toBe(expected);
    for (const h of handles) expect(got.get(h), `handle ${h} fetched after the restart`).toBeDefined();
    console.log(
      `[s3-gateway] fetch-back via ${result?.path}: ${result?.linesExact} lines exact; after a restart on an empty store ` +
        `(${((Date.now() - restartedAt) / 1000).toFixed(1)} s, of it the gateway's start ${(shared.rig.gateway.startMs / 1000).toFixed(1)} s) fetched ${[...got.values()].filter(Boolean).length} of ` +
        `${handles.length} handles; ${((Date.now() - started) / 1000).toFixed(1)} s in all (first gateway start ${(firstStartMs / 1000).toFixed(1)} s), RGW up in ${rgw().rgw.startMs} ms`,
    );
  });
});
