/**
 * Real 2026.9.6 gateways on one bucket of a throwaway Ceph RGW, the long way (about 6-10 min; not in `npm test`,
 * run by `npm run test:s3-gateway`): the RGW killed for 60 s in the middle of a session (every turn answered,
 * every capture reaches the bucket once the RGW is back, the time it took printed); a second gateway on the
 * same bucket and prefix stores a repeated output once; gc on either gateway never removes what the other cites;
 * the first gateway restarted on an empty local store fetches every old handle from the bucket.
 */
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openArtifactStore, type OpenedStore, type StoreBackendSettings } from "../../src/artifacts/index.js";
import { scanReferencedHandles } from "../../src/cli/artifacts/artifact-references.js";
import { agentRoot, artifactRoot } from "../../src/state/paths.js";
import { useCephRgw, type RgwFixture } from "../support/s3-fixture.js";
import type { ChatTurn } from "./gateway.js";
import { grepLines, readHostLog, readPluginEvents } from "./logs.js";
import type { MockRequest } from "./mock-model.js";
import { hasToolResultInCurrentTurn } from "./mock-scripts.js";
import {
  bucketView,
  capturedHandles,
  fetchThroughGateway,
  fetchTurnReply,
  ledgerRootOf,
  restartOnEmptyStore,
  S3_KEY_ENV,
  S3_SECRET_ENV,
  s3LedgerConfig,
  startS3Gateway,
  type FetchWant,
  type StoredMeta,
} from "./s3-gateway.js";
import type { ScenarioSession } from "./scenarios/scenario.js";
import type { SharedRig } from "./scenarios/shared-rig.js";
import { pollUntil } from "./settle.js";

/** How long the RGW stays dead. */
const OUTAGE_MS = 60_000;
/** How long the drain after the RGW's return is waited for before the test gives up (its time is printed). */
const DRAIN_DEADLINE_MS = 60_000;
/** Lines of each printed output: 400 of 60 chars, over the offload thresholds (200 lines, 8,000 chars). */
const OUTPUT_LINES = 400;
/** The lines fetched back of every output. */
const FETCH = { from: 150, to: 154 } as const;
/** Fetch calls per turn. */
const FETCH_BATCH = 5;

/** Line `n` (1-based) of output `label`: 59 chars, varied. */
function outputLine(label: string, n: number): string {
  const head = `${label} line ${String(n).padStart(3, "0")} sum=${((n * 2654435761) % 4294967296).toString(16)} `;
  return (head + "abcdefghijklmnopqrstuvwxyz".repeat(3)).slice(0, 59);
}

/** The whole output of `label`, newline-terminated lines. */
function outputText(label: string): string {
  let s = "";
  for (let n = 1; n <= OUTPUT_LINES; n++) s += `${outputLine(label, n)}\n`;
  return s;
}

/** What a gateway's session printed: per output label, the handle its capture got. */
interface PrintedOutput {
  label: string;
  handle: string;
  turn: ChatTurn;
  /** The model got the tool result and answered after it. */
  answered: boolean;
}

/** A session that prints files with `exec` on request ("Print <file> with exec.") and fetches on request. */
function printingSession(session: ScenarioSession) {
  session.setScript((request: MockRequest) => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    const fetch = fetchTurnReply(request);
    if (fetch) return fetch;
    const file = /Print (\S+) with exec\./.exec(request.userText)?.[1];
    if (!file) return { text: "OK." };
    if (hasToolResultInCurrentTurn(request.messages)) return { text: `Printed ${path.basename(file)}.` };
    return { toolCalls: [{ name: "exec", args: { command: `cat ${file}` } }] };
  });
  return {
    async print(label: string): Promise<PrintedOutput> {
      const file = path.join(session.env.root, `out-${label}.txt`);
      await fsp.writeFile(file, outputText(label));
      const before = session.requests().length;
      const handlesBefore = await capturedHandles(session.env);
      const turn = await session.chatSend(`Print ${file} with exec.`);
      const answered = session
        .requests()
        .slice(before)
        .some((r) => hasToolResultInCurrentTurn(r.messages));
      // The capture hook writes its event as the tool call ends; allow it a moment on a loaded machine.
      const handles = await pollUntil(
        () => capturedHandles(session.env),
        (h) => h.length > handlesBefore.length,
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      const handle = handles.find((h) => !handlesBefore.includes(h)) ?? "";
      return { label, handle, turn, answered };
    },
  };
}

/** Fetches lines {@link FETCH} of every output through the gateway; returns how many came back byte-exact. */
async function fetchEvery(session: ScenarioSession, outputs: readonly PrintedOutput[]): Promise<number> {
  let exact = 0;
  for (let i = 0; i < outputs.length; i += FETCH_BATCH) {
    const batch = outputs.slice(i, i + FETCH_BATCH);
    const wants: FetchWant[] = batch.map((o) => ({ handle: o.handle, ...FETCH }));
    const got = await fetchThroughGateway(session, wants);
    for (const o of batch) {
      const expected = outputText(o.label)
        .split("\n")
        .slice(FETCH.from - 1, FETCH.to)
        .join("\n");
      if (got.get(o.handle) === expected) exact++;
      else console.log(`[s3-gateway-outage] ${o.label} ${o.handle}: got ${JSON.stringify(got.get(o.handle))}`);
    }
  }
  return exact;
}

/**
 * The gateway's store opened beside it, as `context-ledger artifact gc` opens it, but with the cite lag at 0
 * (not a config key; 15 minutes otherwise) and no grace, so that a gc within the test can remove anything at all.
 */
function storeBeside(fixture: RgwFixture, rig: SharedRig, prefix: string): OpenedStore {
  const s3 = (s3LedgerConfig(fixture, prefix).store as { s3: Record<string, unknown> }).s3;
  const settings = {
    backend: "s3",
    spoolBytes: 64 * 1024 * 1024,
    cacheBytes: 64 * 1024 * 1024,
    s3: { ...s3, gcGraceMs: 0, citeLagMs: 0 },
  } as StoreBackendSettings;
  return openArtifactStore({
    root: artifactRoot(ledgerRootOf(rig.rig.env), "main"),
    settings,
    agentSegment: "main",
    env: { [S3_KEY_ENV]: fixture.rgw.accessKeyId, [S3_SECRET_ENV]: fixture.rgw.secretAccessKey },
  });
}

/** `artifact gc --max-age 0s` of a gateway's state: its reference scan, then the shared-bucket gc. */
async function gcOn(fixture: RgwFixture, rig: SharedRig, prefix: string) {
  const opened = storeBeside(fixture, rig, prefix);
  try {
    const referencedScannedAtMs = Date.now();
    const referenced = await scanReferencedHandles(agentRoot(ledgerRootOf(rig.rig.env), "main"));
    return await opened.store.gc({ maxAgeMs: 0, referenced, referencedScannedAtMs });
  } finally {
    await opened.spool?.close();
  }
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

describe("2026.9.6 gateways on a bucket whose RGW goes away for a minute", () => {
  const rgw = useCephRgw("gateways on S3, outage");
  if (!rgw) return;
  const rigs: SharedRig[] = [];
  afterAll(async () => {
    for (const rig of rigs) await rig.close();
  }, 180_000);

  it("answers every turn through the outage, loses no capture, shares the bucket and its gc safely", async () => {
    const fixture = rgw();
    const prefix = `gw-${randomBytes(4).toString("hex")}`;
    const bucket = bucketView(fixture, prefix);
    const one = await startS3Gateway(fixture, prefix);
    rigs.push(one);
    const sessionOne = await one.open("outage");
    const printer = printingSession(sessionOne);

    const before: PrintedOutput[] = [];
    for (const label of ["up-1", "up-2", "up-3"]) before.push(await printer.print(label));
    const uploaded = await pollUntil(
      () => bucket.missing(before.map((o) => o.handle)),
      (m) => m.length === 0,
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(uploaded).toEqual([]);

    // The outage: radosgw killed (monitor and memstore OSD keep the data), turns go on for 60 s.
    await fixture.rgw.killGateway();
    const killedAt = Date.now();
    const during: PrintedOutput[] = [];
    for (let n = 1; Date.now() - killedAt < OUTAGE_MS - 8_000; n++) during.push(await printer.print(`down-${n}`));
    const inOutage = Date.now() - killedAt;
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - killedAt))));
    const restartAt = Date.now();
    await fixture.rgw.restartGateway();
    const answersAt = Date.now();
    const all = [...before, ...during];
    const left = await pollUntil(
      () => bucket.missing(all.map((o) => o.handle)),
      (m) => m.length === 0,
      { timeoutMs: DRAIN_DEADLINE_MS, intervalMs: 250 },
    );
    const drainMs = Date.now() - answersAt;
    const uploads = (await readPluginEvents(one.rig.env)).filter((e) => e.op === "store:upload");
    const answered = during.filter((o) => o.turn.wait.status === "ok" && o.answered).length;
    console.log(
      `[s3-gateway-outage] outage ${seconds(restartAt - killedAt)} s: ${answered}/${during.length} turns answered ` +
        `(${seconds(inOutage)} s of turns, slowest ${seconds(Math.max(...during.map((o) => o.turn.ms)))} s), ` +
        `${during.filter((o) => o.handle).length} captured; RGW answered ` +
        `${seconds(answersAt - restartAt)} s after its restart; spool drained ${seconds(drainMs)} s later; ` +
        `${left.length} captures missing from the bucket; store:upload events ${uploads.map((e) => String(e.ok)).join(",")}`,
    );
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(answered).toBe(during.length);
    for (const o of during) expect(o.handle, `${o.label} was captured`).toMatch(/^ledger:v1:sha256:[0-9a-f]{64}$/);
    expect(new Set(all.map((o) => o.handle)).size).toBe(all.length);
    expect(left).toEqual([]);
    expect(uploads.map((e) => e.ok)).toContain(false);
    expect(uploads.at(-1)).toMatchObject({ ok: true, pending: 0 });

    // A second gateway on the same bucket and prefix: one's first output again, then one of its own.
    const two = await startS3Gateway(fixture, prefix);
    rigs.push(two);
    const printerTwo = printingSession(await two.open("second"));
    const blobsBefore = await bucket.blobs();
    const repeated = await printerTwo.print("up-1");
    expect(repeated.handle).toBe(before[0]?.handle);
    const ownTwo = await printerTwo.print("two-1");
    expect(
      await pollUntil(
        () => bucket.missing([ownTwo.handle]),
        (m) => m.length === 0,
        { timeoutMs: 30_000, intervalMs: 250 },
      ),
    ).toEqual([]);
    const blobsAfter = await bucket.blobs();
    const keyOf = (handle: string) => blobsAfter.find((b) => b.key.endsWith(handle.slice(-64)))?.key;
    const repeatedKey = keyOf(repeated.handle);
    const added = blobsAfter.filter((b) => !blobsBefore.some((a) => a.key === b.key));
    const addedMetas = await Promise.all(added.map((b) => bucket.metaOf(b.key)));
    const describeMeta = (m: StoredMeta | undefined) =>
      m ? `${m.kind} ${m.bytes} B ${m.origin?.toolName ?? ""} ${m.origin?.toolCallId ?? ""}` : "no meta";
    const repeatedBefore = blobsBefore.find((b) => b.key === repeatedKey);
    const repeatedAfter = blobsAfter.filter((b) => b.key === repeatedKey);
    console.log(
      `[s3-gateway-outage] two gateways: ${blobsBefore.length} blobs before the second gateway's turns, ${blobsAfter.length} after ` +
        `(added: ${addedMetas.map(describeMeta).join("; ")}; the second gateway's own output among them: ${String(added.some((b) => b.key === keyOf(ownTwo.handle)))}); ` +
        `the repeated output stored ${repeatedAfter.length} time(s), unchanged since the first gateway stored it: ` +
        `${String(repeatedBefore?.modifiedMs === repeatedAfter[0]?.modifiedMs)}`,
    );
    expect(repeatedKey).toBeDefined();
    expect(repeatedAfter).toHaveLength(1);
    expect(repeatedAfter[0]?.modifiedMs).toBe(repeatedBefore?.modifiedMs);
    // What the second gateway added: its own output, nothing else (no second copy of the repeat in another form).
    const captureEvents = (await readPluginEvents(two.rig.env)).filter((e) => e.op.startsWith("capture"));
    console.log(
      `[s3-gateway-outage] the second gateway's capture events: ${captureEvents.map((e) => `${e.op} ${String(e.toolCallId)} ${String(e.chars)} ${String(e.handle ?? e.reason)} ${e.ts}`).join(" | ")}`,
    );
    const hostLog = await readHostLog(two.rig.env);
    console.log(
      `[s3-gateway-outage] the second gateway's capture warnings: ${grepLines(hostLog, /capture\(s\)|capture failed/, 10).join(" | ")}`,
    );
    expect(added.map((b) => b.key)).toEqual([keyOf(ownTwo.handle)]);

    // gc on both: an artifact no session cites (stashed beside gateway one, as `artifact stash` does) is the only
    // thing that may go, and only once both gateways have published what they cite.
    const beside = storeBeside(fixture, one, prefix);
    const orphan = (await beside.store.stash(outputText("orphan"))).handle;
    expect((await beside.spool?.drain())?.objects).toBe(0);
    await beside.settle?.();
    await beside.spool?.close();
    // A publication counts for blobs written before it, less its scan time and a second (the bucket's clock grain).
    await new Promise((r) => setTimeout(r, 2_500));
    const gcOne = await gcOn(fixture, one, prefix);
    const gcTwo = await gcOn(fixture, two, prefix);
    const gcOneAgain = await gcOn(fixture, one, prefix);
    const cited = [...all.map((o) => o.handle), ownTwo.handle];
    const lost = await bucket.missing(cited);
    console.log(
      `[s3-gateway-outage] gc on one: removed ${gcOne.removed.length}, blocked by ${gcOne.sharedBucket?.blockedBy.map((b) => b.reason).join(",")}; ` +
        `gc on two: removed ${gcTwo.removed.length} (${gcTwo.removed.map((r) => (r.handle === orphan ? "the orphan" : r.handle)).join(", ")}), ` +
        `blocked by ${gcTwo.sharedBucket?.blockedBy.map((b) => b.reason).join(",")}, kept for others ${gcTwo.sharedBucket?.keptForGateways}; ` +
        `gc on one again: removed ${gcOneAgain.removed.length}; cited handles missing from the bucket: ${lost.length} of ${cited.length}`,
    );
    expect(gcOne.removed).toEqual([]);
    expect(gcOne.sharedBucket?.blockedBy.map((b) => b.reason)).toEqual(["never-published"]);
    expect(gcTwo.removed.map((r) => r.handle)).toContain(orphan);
    for (const r of [...gcTwo.removed, ...gcOneAgain.removed]) expect(cited).not.toContain(r.handle);
    expect(await bucket.missing([orphan])).toEqual([orphan]);
    expect(lost).toEqual([]);

    // Gateway one redeployed on an empty local store: every old handle comes from the bucket.
    const restartedAt = Date.now();
    const blobsBeforeRestart = await bucket.blobs();
    await restartOnEmptyStore(one);
    const exact = await fetchEvery(sessionOne, all);
    const storedAfterRestart = (await bucket.blobs()).filter((b) => !blobsBeforeRestart.some((a) => a.key === b.key));
    const kindsAfterRestart = await Promise.all(storedAfterRestart.map((b) => bucket.metaOf(b.key)));
    console.log(
      `[s3-gateway-outage] gateway one restarted on an empty local store: ${exact} of ${all.length} handles fetched byte-exact ` +
        `(${seconds(Date.now() - restartedAt)} s with the restart); stored meanwhile: ${kindsAfterRestart.map(describeMeta).join("; ") || "nothing"}`,
    );
    expect(exact).toBe(all.length);
  });
});
