import { randomBytes } from "node:crypto";
import { existsSync, promises as fsp, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openArtifactStore, type OpenedStore, type StoreBackendSettings } from "../../src/artifacts/index.js";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { blobKey, metaKey } from "../../src/artifacts/format/store-keys.js";
import { readSpoolBacklog } from "../../src/artifacts/backends/tiered-backend.js";
import { parseConfig } from "../../src/config/parse-config.js";
import { createLedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import { artifactRoot } from "../../src/state/paths.js";
import { scanReferencedHandles } from "../../src/state/reference-scan.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { useSharedTempDir } from "../support/temp-dir.js";
import { killWorker, startWorker } from "../support/worker-process.js";

const WORKER = fileURLToPath(new URL("./workers/stash-worker.mjs", import.meta.url));
const output = (label: string): string =>
  Array.from({ length: 200 }, (_, i) => `${label} ${i} ${randomBytes(8).toString("hex")}`).join("\n");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** An endpoint nothing listens on: every request is refused at once. */
const DOWN = "http://127.0.0.1:1";

/** Polls until the local spool of `root` is empty; false when it is not within `timeoutMs`. */
async function spoolEmptied(root: string, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (readSpoolBacklog(root).objects === 0) return true;
    await sleep(100);
  }
  return false;
}

describe("no handle lost to gc, a crash or an outage of the shared bucket", () => {
  const rgw = useCephRgw("reuse faults");
  const tmp = useSharedTempDir("ledger-s3-reuse-faults-");
  if (!rgw) return;

  const env = () => rgw().env();
  const settings = (prefix: string, endpoint = rgw().rgw.endpoint): StoreBackendSettings =>
    rgw().settings(prefix, { s3: { endpoint } });
  const open = (root: string, s: StoreBackendSettings): OpenedStore => rgw().gateway(root, s);
  const inBucket = async (prefix: string, handle: string): Promise<boolean> => {
    const bucket = createS3Backend(rgw().options(`${prefix}/agents/main`));
    const hex = handle.slice(-64);
    return (await bucket.head(blobKey(hex))) !== undefined && (await bucket.head(metaKey(hex))) !== undefined;
  };

  it("keeps a blob reused while the bucket was down, touched when the restarted gateway's upload found it", async () => {
    const prefix = `down-${randomBytes(4).toString("hex")}`;
    const a = open(path.join(tmp(), "down-a"), settings(prefix));
    const rootB = path.join(tmp(), "down-b");
    const b = open(rootB, settings(prefix));
    const text = output("reused offline");
    const { handle } = await a.store.stash(text);
    await b.store.stash(output("b's own"));
    expect((await a.spool?.drain())?.objects).toBe(0);
    expect((await b.spool?.drain())?.objects).toBe(0);
    await sleep(2_200);
    await b.store.gc({ referenced: new Set(), dryRun: true });
    await b.spool?.close();
    await sleep(1_100);

    // B cannot reach the bucket: its existence check fails, so it keeps its own copy in the spool.
    const offline = open(rootB, settings(prefix, DOWN));
    expect(await offline.store.stash(text)).toMatchObject({ handle, created: true });
    await offline.spool?.close();
    expect(readSpoolBacklog(rootB).objects).toBe(2);

    // Restarted with the bucket back, B uploads its spool without stashing anything; the upload finds the blob there.
    const restarted = open(rootB, settings(prefix));
    expect(await spoolEmptied(rootB, 30_000)).toBe(true);
    const report = await a.store.gc({ maxAgeMs: 0, referenced: new Set() });
    expect(report.sharedBucket?.blockedBy).toEqual([]);
    expect(report.removed.map((r) => r.handle)).not.toContain(handle);
    expect(await inBucket(prefix, handle)).toBe(true);
    const fresh = open(path.join(tmp(), "down-fresh"), settings(prefix));
    expect((await fresh.store.readText(handle)) === text).toBe(true);
    // Every folder the spool, the cache and the gateway id made is the owner's alone.
    const folders = [rootB, ...(await fsp.readdir(rootB, { recursive: true })).map((f) => path.join(rootB, f))];
    const open0700 = [];
    for (const f of folders) {
      const st = await fsp.stat(f).catch(() => undefined);
      if (st?.isDirectory() && (st.mode & 0o777) !== 0o700) open0700.push(f);
    }
    expect(open0700).toEqual([]);
    for (const g of [a, restarted, fresh]) await g.spool?.close();
  }, 120_000);

  it("keeps what a checkpoint pack cites when the pack is only in the bucket (a gateway redeployed on an empty disk)", async () => {
    const prefix = `packs-${randomBytes(4).toString("hex")}`;
    const agentDir = path.join(tmp(), "packs-agent");
    const root = path.join(agentDir, "artifacts");
    const first = open(root, settings(prefix));
    const citedText = output("cited through the pack");
    const cited = (await first.store.stash(citedText)).handle;
    const orphan = (await first.store.stash(output("cited by nothing"))).handle;
    const pack = (await first.store.stash(`checkpoint pack\nartifacts: ${cited}\n`, { kind: "checkpoint" })).handle;
    await fsp.mkdir(path.join(agentDir, "sessions"), { recursive: true });
    await fsp.writeFile(path.join(agentDir, "sessions", "s1.json"), JSON.stringify({ checkpoint: pack }));
    expect((await first.spool?.drain())?.objects).toBe(0);
    const oldId = (await first.gateways?.id()) ?? "";
    await first.spool?.close();

    // The disk is replaced: the state comes back from a backup, the store's local folder does not.
    await fsp.rm(root, { recursive: true, force: true });
    await sleep(2_200);
    const redeployed = open(root, settings(prefix));
    expect(await redeployed.gateways?.retire(oldId)).toBe(true);
    const referenced = await scanReferencedHandles(agentDir, redeployed.store);
    expect([...referenced].sort()).toEqual([cited, pack].sort());
    const report = await redeployed.store.gc({ maxAgeMs: 0, referenced });
    expect(report.removed.map((r) => r.handle)).toEqual([orphan]);
    expect(await inBucket(prefix, cited)).toBe(true);
    expect((await redeployed.store.readText(cited)) === citedText).toBe(true);
    await redeployed.spool?.close();
  }, 120_000);

  it("uploads every handle a stash returned before a SIGKILL at a random instruction, from the restart alone", async () => {
    const prefix = `crash-${randomBytes(4).toString("hex")}`;
    const root = path.join(tmp(), "crash");
    const out = path.join(tmp(), "crash-handles.jsonl");
    // Offline, so nothing is uploaded before the kill: every returned handle rests on the local spool alone.
    const worker = startWorker(WORKER, { root, settings: settings(prefix, DOWN), env: env(), out });
    const killAfter = 40 + Math.floor(Math.random() * 40);
    const end = Date.now() + 60_000;
    while (Date.now() < end) {
      if (existsSync(out) && readFileSync(out, "utf8").split("\n").length > killAfter) break;
      await sleep(5);
    }
    await killWorker(worker);
    expect((await worker.exited).signal, worker.stderr()).toBe("SIGKILL");
    const returned = readFileSync(out, "utf8")
      .split("\n")
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as { handle: string; text: string }];
        } catch {
          return [];
        }
      });
    expect(returned.length).toBeGreaterThan(killAfter - 1);

    const restarted = open(root, settings(prefix));
    expect(await spoolEmptied(root, 60_000)).toBe(true);
    const fresh = open(path.join(tmp(), "crash-fresh"), settings(prefix));
    let readBack = 0;
    for (const { handle, text } of returned) if ((await fresh.store.readText(handle)) === text) readBack++;
    expect(readBack).toBe(returned.length);
    await restarted.spool?.close();
    await fresh.spool?.close();
  }, 180_000);

  it("reports refused credentials as artifact_forbidden, on a stash and on a read, never as not found", async () => {
    const prefix = `forbidden-${randomBytes(4).toString("hex")}`;
    const good = open(path.join(tmp(), "forbidden-good"), settings(prefix));
    const { handle } = await good.store.stash(output("stored with good keys"));
    expect((await good.spool?.drain())?.objects).toBe(0);
    await good.spool?.close();
    const refused = openArtifactStore({
      root: path.join(tmp(), "forbidden-bad"),
      settings: settings(prefix),
      agentSegment: "main",
      env: { KEY: rgw().rgw.accessKeyId, SECRET: "not-the-secret" },
    });
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => "served",
        (err: { code?: string }) => err.code,
      );
    expect(await codeOf(refused.store.readText(handle))).toBe("artifact_forbidden");
    expect(await codeOf(refused.store.stash(output("stashed with bad keys")))).toBe("artifact_forbidden");
    await refused.spool?.close();
  }, 60_000);

  it("a gateway starting with objects in an agent's spool uploads them before that agent stashes again", async () => {
    const prefix = `resume-${randomBytes(4).toString("hex")}`;
    const stateDir = path.join(tmp(), "resume-state");
    const root = artifactRoot(stateDir, "main");
    const offline = open(root, settings(prefix, DOWN));
    const text = output("spooled before a restart");
    const { handle } = await offline.store.stash(text);
    await offline.spool?.close();
    expect(readSpoolBacklog(root).objects).toBe(2);

    const config = parseConfig({ stateDir, store: rgw().pluginStore(prefix) });
    createLedgerRuntime({ config, env: env() });
    expect(await spoolEmptied(root, 30_000)).toBe(true);
    const fresh = open(path.join(tmp(), "resume-fresh"), settings(prefix));
    expect((await fresh.store.readText(handle)) === text).toBe(true);
    await fresh.spool?.close();
  }, 60_000);
});
