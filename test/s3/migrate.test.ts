import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  openMigrationEnds,
  openArtifactStore,
  type StoreBackendSettings,
  createArtifactStore,
  migrateArtifacts,
} from "../../src/artifacts/index.js";
import { runArtifactCommand } from "../../src/cli/artifacts/artifact.js";
import { artifactRoot } from "../../src/state/paths.js";
import { runWith } from "../cli/cli-fixtures.js";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { killWorker, startWorker } from "../support/worker-process.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { useSharedTempDir } from "../support/temp-dir.js";

const WORKER = fileURLToPath(new URL("./workers/migrate-worker.mjs", import.meta.url));

interface AgentReport {
  agentId: string;
  total: number;
  copied: number;
  present: number;
  failed: unknown[];
}

describe("artifact migrate against a real Ceph RGW", () => {
  const rgw = useCephRgw("migrate");
  const tmp = useSharedTempDir("ledger-s3-migrate-");
  if (!rgw) return;
  const fixture = rgw;

  /** A gateway's state folder whose config points at the fixture's bucket under `prefix`. */
  async function gatewayState(name: string, prefix: string, secret = fixture().rgw.secretAccessKey) {
    const state = path.join(tmp(), name);
    await fsp.mkdir(state, { recursive: true });
    const s3 = {
      endpoint: fixture().rgw.endpoint,
      bucket: fixture().bucket,
      prefix,
      pathStyle: true,
      timeoutMs: 20_000,
    };
    const config = { plugins: { entries: { "context-ledger": { config: { store: { s3 } } } } } };
    await fsp.writeFile(path.join(state, "openclaw.json"), JSON.stringify(config));
    const env = {
      HOME: path.join(tmp(), "home"),
      OPENCLAW_STATE_DIR: state,
      AWS_ACCESS_KEY_ID: fixture().rgw.accessKeyId,
      AWS_SECRET_ACCESS_KEY: secret,
    };
    const settings: StoreBackendSettings = {
      backend: "s3",
      spoolBytes: 256 * 1024 * 1024,
      cacheBytes: 256 * 1024 * 1024,
      s3: {
        ...s3,
        region: "us-east-1",
        accessKeyIdEnv: "AWS_ACCESS_KEY_ID",
        signingKeyEnv: "AWS_SECRET_ACCESS_KEY",
      },
    };
    return { state, ledger: path.join(state, "context-ledger"), env, settings };
  }

  async function migrate(env: NodeJS.ProcessEnv, args: string[]) {
    const r = await runWith(runArtifactCommand, ["migrate", ...args, "--json"], env);
    return { ...r, doc: JSON.parse(r.stdout) as { agents: AgentReport[]; error?: { code: string } } };
  }

  it("moves a store into the bucket across an interruption, every handle byte-exact from the bucket, and back", async () => {
    const prefix = `mig-${randomBytes(4).toString("hex")}`;
    const a = await gatewayState("gw-a", prefix);
    const bodies = new Map<string, Buffer>();
    const main = createArtifactStore({ root: artifactRoot(a.ledger, "main") });
    for (let i = 0; i < 5; i++) {
      const text = Array.from({ length: 2_000 }, (_, j) => `${i} ${j} ${randomBytes(8).toString("hex")}`).join("\n");
      bodies.set((await main.stash(text, { kind: "tool-output" })).handle, Buffer.from(text));
    }
    // About 20 MiB stored: twenty chunks, uploaded as a multipart upload.
    const large = randomBytes(20 * 1024 * 1024);
    const largeHandle = (await main.stash(large)).handle;
    bodies.set(largeHandle, large);
    const ops = createArtifactStore({ root: artifactRoot(a.ledger, "ops") });
    const opsHandle = (await ops.stash("an ops output\n")).handle;

    // Interrupted after two artifacts, then resumed by the command.
    const root = artifactRoot(a.ledger, "main");
    const stop = new AbortController();
    const first = await migrateArtifacts({
      ...openMigrationEnds({ to: "s3", root, agentSegment: "main", settings: a.settings, env: a.env }),
      root,
      signal: stop.signal,
      onArtifact: (p) => {
        if (p.done === 2) stop.abort();
      },
    });
    expect(first).toMatchObject({ total: 6, copied: 2, interrupted: true });
    const resumed = await migrate(a.env, ["--to", "s3", "--all"]);
    expect(resumed.code).toBe(0);
    expect(resumed.doc.agents).toEqual([
      expect.objectContaining({ agentId: "main", total: 6, copied: 4, present: 2, failed: [] }),
      expect.objectContaining({ agentId: "ops", total: 1, copied: 1, present: 0, failed: [] }),
    ]);
    const again = await migrate(a.env, ["--to", "s3", "--all"]);
    expect(again.doc.agents.map((r) => [r.copied, r.present])).toEqual([
      [0, 6],
      [0, 1],
    ]);

    // A gateway switched to the bucket, on an empty local disk, reads every handle byte-exact.
    const onBucket = openArtifactStore({
      root: path.join(tmp(), "empty-disk"),
      settings: a.settings,
      agentSegment: "main",
      env: a.env,
    });
    for (const [handle, bytes] of bodies) expect((await onBucket.store.read(handle)).equals(bytes)).toBe(true);
    const firstLine = await onBucket.store.select(largeHandle, { kind: "range", start: 1, end: 1 }, { maxChars: 100 });
    expect(firstLine.text.length).toBeGreaterThan(0);
    await onBucket.spool?.close();

    // And back, into another gateway's empty state, every agent the bucket holds.
    const b = await gatewayState("gw-b", prefix);
    const back = await migrate(b.env, ["--to", "file", "--all"]);
    expect(back.code).toBe(0);
    expect(back.doc.agents.map((r) => [r.agentId, r.copied, r.failed.length])).toEqual([
      ["main", 6, 0],
      ["ops", 1, 0],
    ]);
    const local = createArtifactStore({ root: artifactRoot(b.ledger, "main") });
    for (const [handle, bytes] of bodies) expect((await local.read(handle)).equals(bytes)).toBe(true);
    expect(await local.readMeta(largeHandle)).toEqual(await main.readMeta(largeHandle));
    expect(await createArtifactStore({ root: artifactRoot(b.ledger, "ops") }).readText(opsHandle)).toBe(
      "an ops output\n",
    );
    expect((await main.verifyAll()).ok).toHaveLength(6);
  }, 180_000);

  it("a migration SIGKILLed part-way is finished by the next run, which copies only what is missing", async () => {
    const prefix = `kill-${randomBytes(4).toString("hex")}`;
    const a = await gatewayState("gw-kill", prefix);
    const local = createArtifactStore({ root: artifactRoot(a.ledger, "main") });
    const bodies = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const text = Array.from({ length: 3_000 }, (_, j) => `${i} ${j} ${randomBytes(8).toString("hex")}`).join("\n");
      bodies.set((await local.stash(text)).handle, text);
    }
    const bucket = createS3Backend(fixture().options(`${prefix}/agents/main`));
    const metasIn = async () => {
      let n = 0;
      for await (const o of bucket.list("meta/")) if (o.key.endsWith(".json")) n++;
      return n;
    };
    const worker = startWorker(WORKER, { env: a.env });
    const deadline = Date.now() + 60_000;
    while ((await metasIn()) < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 30));
    await killWorker(worker);
    expect((await worker.exited).signal, worker.stderr()).toBe("SIGKILL");
    const before = await metasIn();
    expect(before).toBeGreaterThanOrEqual(5);
    expect(before).toBeLessThan(40);

    const resumed = await migrate(a.env, ["--to", "s3"]);
    expect(resumed.code).toBe(0);
    const [report] = resumed.doc.agents;
    expect(report).toMatchObject({ total: 40, failed: [] });
    expect((report?.copied ?? 0) + (report?.present ?? 0)).toBe(40);
    expect(report?.present).toBeGreaterThanOrEqual(before);
    expect(await metasIn()).toBe(40);
    const onBucket = openArtifactStore({
      root: path.join(tmp(), "kill-empty-disk"),
      settings: a.settings,
      agentSegment: "main",
      env: a.env,
    });
    for (const [handle, text] of bodies) expect(await onBucket.store.readText(handle)).toBe(text);
    await onBucket.spool?.close();
  }, 180_000);

  it("refuses wrong credentials and a bucket that does not exist, each with its own code", async () => {
    const wrong = await gatewayState("gw-wrong", "mig-wrong", "not-the-secret");
    await createArtifactStore({ root: artifactRoot(wrong.ledger, "main") }).stash("x");
    const refused = await migrate(wrong.env, ["--to", "s3"]);
    expect(refused.code).toBe(2);
    expect(refused.doc.error).toMatchObject({ code: "artifact_forbidden" });

    const missing = await gatewayState("gw-missing", "mig-missing");
    const config = JSON.parse(await fsp.readFile(path.join(missing.state, "openclaw.json"), "utf8"));
    config.plugins.entries["context-ledger"].config.store.s3.bucket = "no-such-bucket-here";
    await fsp.writeFile(path.join(missing.state, "openclaw.json"), JSON.stringify(config));
    const none = await migrate(missing.env, ["--to", "file"]);
    expect(none.code).toBe(1);
    expect(none.doc.error).toMatchObject({ code: "config_invalid" });
  }, 60_000);
});
