import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { blobKey, metaKey } from "../../src/artifacts/format/store-keys.js";
import { openAgentStore } from "../../src/cli/core/agent-store.js";
import { runChatCommand } from "../../src/chat/ledger-command.js";
import { runCli } from "../../src/cli/run-cli.js";
import type { SessionCleanReport } from "../../src/cli/sessions/session.js";
import { parseConfig } from "../../src/config/parse-config.js";
import { createLedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import { sessionRoot } from "../../src/state/paths.js";
import { createSessionState } from "../../src/state/session-state.js";
import { sessionStatePath, writeSessionState } from "../../src/state/session-file.js";
import { buildCheckpointPack } from "../../src/summary/checkpoint.js";
import { createSummaryState } from "../../src/summary/summary-state.js";
import { bloatedSession, makeTempState, runWith, writeHostSession } from "../cli/cli-fixtures.js";
import { createMemoryLogger } from "../support/engine-harness.js";
import { useCephRgw } from "../support/s3-fixture.js";

const KEY = "agent:main:main";

interface DoctorDoc {
  findings: Array<{ check: string; level: string; message: string; path?: string }>;
}

/** Every file under `dir` (relative path → content). */
async function filesUnder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fsp.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = await fsp.readFile(file, "utf8");
  }
  return out;
}

const STARTED = Date.now();

/** `text` with every time stamp from this test run (ISO, or as in a backup's name) written `<now>`. */
function withoutRunTimes(text: string): string {
  return text.replace(
    /(\d{4}-\d\d-\d\dT\d\d)[:-](\d\d)[:-](\d\d)(?:[.-](\d{3}))?Z/g,
    (stamp: string, ...parts: string[]) => {
      const [day, m, sec, ms] = parts;
      return Date.parse(`${day}:${m}:${sec}.${ms ?? "000"}Z`) >= STARTED - 1_000 ? "<now>" : stamp;
    },
  );
}

describe("the CLI's commands on a store in a bucket", () => {
  const rgw = useCephRgw("cli commands");
  if (!rgw) return;

  /** A host state with one bloated session, the plugin configured on `store` (undefined: the file store). */
  async function hostState(label: string, store?: Record<string, unknown>) {
    const t = await makeTempState(label);
    const session = bloatedSession({ turns: 4, outputChars: 40_000 });
    await writeHostSession(t.state, "main", session);
    await fsp.writeFile(
      path.join(t.state, "agents", "main", "sessions", "sessions.json"),
      JSON.stringify({ [KEY]: { sessionId: session.sessionId } }),
    );
    const config = store ? { store } : {};
    await fsp.writeFile(
      path.join(t.state, "openclaw.json"),
      JSON.stringify({ plugins: { entries: { "context-ledger": { enabled: true, config } } } }),
    );
    const env = { ...t.env, ...rgw?.().env() };
    const ledgerRoot = path.join(t.state, "context-ledger");
    /** The command's output with this state's folder named `<dir>` and times of this run `<now>`. */
    const run = async (...argv: string[]) => {
      const r = await runWith(runCli, argv, env);
      const normal = (text: string) => withoutRunTimes(text.replaceAll(t.dir, "<dir>"));
      return { ...r, stdout: normal(r.stdout), stderr: normal(r.stderr) };
    };
    return { ...t, env, ledgerRoot, config: parseConfig(config), cli: run };
  }
  type HostState = Awaited<ReturnType<typeof hostState>>;

  /** A checkpoint pack citing `cited`, stored through the configured store and recorded in the session's state. */
  async function sealCheckpoint(t: HostState, cited: string[]): Promise<string> {
    const opened = openAgentStore({ config: t.config, ledgerRoot: t.ledgerRoot, agentId: "main", env: t.env });
    const pack = buildCheckpointPack(createSummaryState("epoch-1"), {
      frontierIndex: 9,
      frontierFingerprint: "fp9",
      frontierEntryId: "e0009",
      artifactHandles: cited,
    });
    const { handle } = await opened.store.stash(pack, { kind: "checkpoint", origin: { sessionKey: KEY } });
    await opened.finish();
    const state = createSessionState("main", KEY);
    state.checkpoints.push({ handle, at: "2026-04-25T11:00:00.000Z", coveredCount: 9 });
    await writeSessionState(sessionStatePath(sessionRoot(t.ledgerRoot, "main", KEY)), state);
    return handle;
  }

  it("session clean, export, grep, status, checkpoint and doctor answer on a bucket as on the file store", async () => {
    const prefix = `cli-${randomBytes(4).toString("hex")}`;
    const onFile = await hostState("cli-file");
    const onS3 = await hostState("cli-s3", rgw().pluginStore(prefix));
    let bucketOnly = false;
    /** Runs one command on both states: both exit alike, and each output passes through `normalise`. */
    const both = async (
      argv: string[] | ((t: HostState) => string[]),
      normalise: (stdout: string, t: HostState) => unknown = (s) => s,
    ) => {
      const args = (t: HostState) => (typeof argv === "function" ? argv(t) : argv);
      const f = await onFile.cli(...args(onFile));
      // Each command from the bucket alone: what an earlier one cached must not answer for it.
      if (bucketOnly)
        await fsp.rm(path.join(onS3.ledgerRoot, "agents", "main", "artifacts"), { recursive: true, force: true });
      const s = await onS3.cli(...args(onS3));
      expect(s.code, `${args(onS3).join(" ")}: ${s.stderr}`).toBe(f.code);
      return { file: normalise(f.stdout, onFile), s3: normalise(s.stdout, onS3) };
    };
    try {
      const clean = await both(["session", "clean", "--all", "--json"]);
      expect(clean.s3).toEqual(clean.file);
      const cleaned = JSON.parse(clean.s3 as string) as SessionCleanReport;
      const handles = cleaned.sessions.flatMap((s) => s.payloads.map((p) => p.handle)).sort();
      expect(handles.length).toBeGreaterThan(0);

      // Every stubbed output is in the bucket before the command returned.
      const bucket = createS3Backend(rgw().options(`${prefix}/agents/main`));
      for (const h of handles) {
        expect(await bucket.head(blobKey(h.slice(-64))), h).toBeDefined();
        expect(await bucket.head(metaKey(h.slice(-64))), h).toBeDefined();
      }
      const pack = await sealCheckpoint(onS3, handles);
      expect(await sealCheckpoint(onFile, handles)).toBe(pack);

      // The local store is gone (a disk replaced, or another gateway's outputs): the commands read the bucket.
      bucketOnly = true;

      const out = (t: HostState) => path.join(t.dir, "export");
      const exported = await both((t) => ["export", "--session", KEY, "--out", out(t), "--json"]);
      expect(exported.s3).toEqual(exported.file);
      const fileExport = await filesUnder(out(onFile));
      expect(Object.keys(fileExport).length).toBeGreaterThan(handles.length);
      const s3Export = await filesUnder(out(onS3));
      expect(Object.keys(s3Export).sort()).toEqual(Object.keys(fileExport).sort());
      const exportedAs = (t: HostState, text: string | undefined) =>
        withoutRunTimes(text?.replaceAll(t.dir, "<dir>") ?? "");
      for (const [name, text] of Object.entries(fileExport))
        expect(exportedAs(onS3, s3Export[name]), name).toBe(exportedAs(onFile, text));

      const grep = await both(["grep", "exit code 0", "--json"]);
      expect((JSON.parse(grep.file as string) as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
      expect(grep.s3).toEqual(grep.file);
      const grepText = await both(["grep", "line 7 "]);
      expect(grepText.s3).toEqual(grepText.file);

      // status: the bucket's upload line is the one backend-specific part, and nothing waits to upload.
      const status = await both(["status", "--json"], (out) => {
        const doc = JSON.parse(out) as { agents: Array<{ upload?: unknown }> };
        return { ...doc, agents: doc.agents.map(({ upload: _upload, ...a }) => a) };
      });
      expect(status.s3).toEqual(status.file);
      const upload = (
        JSON.parse((await onS3.cli("status", "--json")).stdout) as { agents: Array<{ upload?: unknown }> }
      ).agents[0]?.upload;
      expect(upload).toEqual({
        backend: "s3",
        location: `s3://${rgw().bucket}/${prefix}`,
        pendingObjects: 0,
        pendingBytes: 0,
      });
      const statusText = await both(["status"], (out) => out.replace(/\n {2}upload to s3:\/\/.*\n/, "\n"));
      expect(statusText.s3).toEqual(statusText.file);
      expect(statusText.file).toContain("1 checkpoint");

      const list = await both(["checkpoint", "list", "--json"]);
      expect(list.s3).toEqual(list.file);
      expect(list.file).toContain(pack);
      for (const form of [["--json"], []]) {
        const show = await both(["checkpoint", "show", pack, ...form]);
        expect(show.s3).toEqual(show.file);
        expect(show.file).toContain(handles[0]);
      }

      // doctor: the store's checks alike (the bucket's path in place of the file's); the bucket's own checks pass.
      const storeChecks = new Set(["artifacts", "orphans", "state"]);
      const doctor = await both(["doctor", "--json"], (out) =>
        (JSON.parse(out) as DoctorDoc).findings
          .filter((f) => storeChecks.has(f.check))
          .map(({ path: _path, ...f }) => f),
      );
      expect(doctor.s3).toEqual(doctor.file);
      expect(doctor.file).toContainEqual({
        check: "artifacts",
        level: "ok",
        message: `main: ${handles.length + 1} of ${handles.length + 1} artifacts verified`,
      });
      const remote = (JSON.parse((await onS3.cli("doctor", "--json")).stdout) as DoctorDoc).findings.filter(
        (f) => !storeChecks.has(f.check) && ["bucket", "remote-store", "upload-spool"].includes(f.check),
      );
      expect(remote.map((f) => [f.check, f.level])).toEqual([
        ["bucket", "ok"],
        ["remote-store", "ok"],
        ["upload-spool", "ok"],
      ]);
    } finally {
      await fsp.rm(onFile.dir, { recursive: true, force: true });
      await fsp.rm(onS3.dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("doctor says when the bucket does not exist and how to create it", async () => {
    const missing = `absent-${randomBytes(4).toString("hex")}`;
    const t = await hostState("cli-nobucket", rgw().pluginStore("p", { bucket: missing }));
    try {
      const r = await t.cli("doctor", "--json");
      const bucket = (JSON.parse(r.stdout) as DoctorDoc).findings.find((f) => f.check === "bucket");
      expect(bucket?.level).toBe("error");
      expect(bucket?.message).toContain(`bucket ${missing} does not exist`);
      expect(bucket?.message).toContain(`aws s3api create-bucket --bucket ${missing}`);
    } finally {
      await fsp.rm(t.dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("with the bucket down, status and /ledger status answer with the backlog and the outputs kept here", async () => {
    const t = await hostState(
      "cli-down",
      rgw().pluginStore(`down-${randomBytes(4).toString("hex")}`, { timeoutMs: 2_000 }),
    );
    const config = { ...t.config, stateDir: t.ledgerRoot };
    const runtime = createLedgerRuntime({ config, env: t.env, hostLogger: createMemoryLogger().logger });
    let down = false;
    try {
      await rgw().rgw.killGateway();
      down = true;
      const opened = openAgentStore({ config: t.config, ledgerRoot: t.ledgerRoot, agentId: "main", env: t.env });
      const stashed = [];
      for (const n of [1, 2])
        stashed.push(await opened.store.stash(`output ${n}\n`.repeat(500), { kind: "tool-output" }));
      await opened.close();
      const bytes = stashed.reduce((sum, x) => sum + x.meta.storedBytes, 0);

      const status = await t.cli("status", "--json");
      expect(status.code, status.stderr).toBe(0);
      const agent = (
        JSON.parse(status.stdout) as {
          agents: Array<{ artifacts: { count: number }; upload?: { pendingObjects: number; pendingBytes: number } }>;
        }
      ).agents[0];
      expect(agent?.artifacts.count).toBe(2);
      expect(agent?.upload?.pendingObjects).toBe(4);
      expect(agent?.upload?.pendingBytes).toBeGreaterThan(bytes);

      const chat = await runChatCommand(runtime, { agentId: "main", sessionKey: KEY, args: "status" });
      expect(chat.text).toContain("2 tool outputs");
      expect(chat.text).toMatch(/Uploads: 4 objects \([^)]+\) wait in the local spool/);
      expect(chat.text).not.toContain("io_failed");

      // Back up, the gateway uploads the backlog (and its uploads end before the folder goes).
      await rgw().rgw.restartGateway();
      down = false;
      const end = Date.now() + 30_000;
      while ((await runtime.store("main").pendingUploads?.())?.objects !== 0 && Date.now() < end)
        await new Promise((r) => setTimeout(r, 100));
      expect((await runChatCommand(runtime, { agentId: "main", sessionKey: KEY, args: "status" })).text).toContain(
        "Uploads: nothing waits in the local spool",
      );
    } finally {
      if (down) await rgw().rgw.restartGateway();
      await fsp.rm(t.dir, { recursive: true, force: true });
    }
  }, 90_000);
});
