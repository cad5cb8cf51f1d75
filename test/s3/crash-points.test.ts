import { randomBytes } from "node:crypto";
import { existsSync, promises as fsp, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openArtifactStore } from "../../src/artifacts/open-store.js";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { createArtifactStore } from "../../src/artifacts/store.js";
import { hexOfBlobKey, hexOfMetaKey } from "../../src/artifacts/format/store-keys.js";
import { runCli } from "../../src/cli/run-cli.js";
import { parseConfig, resolveAgentSettings } from "../../src/config/parse-config.js";
import { createLedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import { artifactRoot } from "../../src/state/paths.js";
import { bloatedSession, runWith, writeHostSession } from "../cli/cli-fixtures.js";
import { createMemoryLogger } from "../support/engine-harness.js";
import { startWorker } from "../support/worker-process.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { useSharedTempDir } from "../support/temp-dir.js";

const WORKER = fileURLToPath(new URL("./workers/crash-at.mjs", import.meta.url));
const KEY = "agent:main:main";
const HANDLE = /ledger:v1:sha256:[0-9a-f]{64}/g;

/** The numbered steps a worker's trace lists: `[step, what]`. */
function stepsOf(trace: string): Array<[number, string]> {
  if (!existsSync(trace)) return [];
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => [Number(line.slice(0, line.indexOf(" "))), line.slice(line.indexOf(" ") + 1)]);
}

/** A step to crash at, by what it does: `after` steps past the `nth` whose trace text matches `match`. */
interface CrashPoint {
  match: string;
  nth: number;
  after?: number;
}

describe("a crash at a chosen step of a command on a bucket loses nothing", () => {
  const rgw = useCephRgw("crash points");
  const tmp = useSharedTempDir("ledger-s3-crash-");
  if (!rgw) return;
  const fixture = rgw;

  /** A gateway's state on a fresh prefix of the fixture's bucket. */
  async function gatewayState(label: string) {
    const dir = path.join(tmp(), `${label}-${randomBytes(3).toString("hex")}`);
    const state = path.join(dir, "state");
    await fsp.mkdir(state, { recursive: true });
    const prefix = `crash-${randomBytes(4).toString("hex")}`;
    const store = fixture().pluginStore(prefix);
    await fsp.writeFile(
      path.join(state, "openclaw.json"),
      JSON.stringify({ plugins: { entries: { "context-ledger": { enabled: true, config: { store } } } } }),
    );
    const env = {
      HOME: path.join(dir, "home"),
      OPENCLAW_STATE_DIR: state,
      PATH: "",
      ...fixture().env(),
    };
    const config = parseConfig({ store });
    const ledgerRoot = path.join(state, "context-ledger");
    return { dir, state, env, config, ledgerRoot, prefix };
  }
  type GatewayState = Awaited<ReturnType<typeof gatewayState>>;

  /** Runs `argv` in a worker that SIGKILLs itself at the step `crashAt` names (null: never); its trace. */
  async function runUntil(g: GatewayState, argv: string[], crashAt: CrashPoint | null) {
    const trace = path.join(g.dir, `trace-${randomBytes(3).toString("hex")}`);
    const worker = startWorker(WORKER, { env: g.env, argv, crashAt, trace });
    const exit = await worker.exited;
    return { exit, steps: stepsOf(trace), stderr: worker.stderr() };
  }

  /** A store on an empty disk reading the gateway's bucket: what any other gateway, or a redeployed one, sees. */
  function fromBucketAlone(g: GatewayState) {
    return openArtifactStore({
      root: path.join(g.dir, `empty-disk-${randomBytes(3).toString("hex")}`),
      settings: resolveAgentSettings(g.config, "main").store,
      agentSegment: "main",
      env: g.env,
    });
  }

  /** The gateway started again: its store uploads what the crash left in the spool; true once nothing waits. */
  async function restartAndDrain(g: GatewayState): Promise<boolean> {
    const runtime = createLedgerRuntime({
      config: { ...g.config, stateDir: g.ledgerRoot },
      env: g.env,
      hostLogger: createMemoryLogger().logger,
    });
    const store = runtime.store("main");
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
      if ((await store.pendingUploads?.())?.objects === 0) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }

  /** The bucket never holds a meta without its blob. */
  async function metasWithoutBlob(g: GatewayState): Promise<string[]> {
    const bucket = createS3Backend(fixture().options(`${g.prefix}/agents/main`));
    const blobs = new Set<string>();
    const metas: string[] = [];
    for await (const o of bucket.list("")) {
      const blob = hexOfBlobKey(o.key);
      if (blob) blobs.add(blob);
      const meta = hexOfMetaKey(o.key);
      if (meta) metas.push(meta);
    }
    return metas.filter((hex) => !blobs.has(hex));
  }

  /**
   * Runs `argv` until the worker kills itself at `at`, and checks what any crash must leave: no meta in the bucket
   * without its blob. Returns where it stopped, for the messages of later checks.
   */
  async function crashAt(g: GatewayState, argv: string[], at: CrashPoint): Promise<string> {
    const crashed = await runUntil(g, argv, at);
    const where = `step ${crashed.steps.at(-1)?.[0]} (${JSON.stringify(at)}): ${crashed.steps.at(-1)?.[1] ?? "none"}`;
    expect(crashed.exit.signal, `${where}\n${crashed.stderr}`).toBe("SIGKILL");
    expect(await metasWithoutBlob(g), where).toEqual([]);
    return where;
  }

  /** Steps to crash at: those `pick` names in the trace, and one drawn at random, each by what it does. */
  function chooseSteps(steps: Array<[number, string]>, pick: Array<(steps: Array<[number, string]>) => CrashPoint>) {
    return [...pick.map((p) => p(steps)), drawn(steps, Math.floor(Math.random() * steps.length))];
  }
  const occurrences = (steps: Array<[number, string]>, re: RegExp) => steps.filter(([, w]) => re.test(w)).length;
  const first =
    (re: RegExp, after = 0) =>
    (): CrashPoint => ({ match: re.source, nth: 1, after });
  const last =
    (re: RegExp) =>
    (steps: Array<[number, string]>): CrashPoint => ({
      match: re.source,
      nth: occurrences(steps, re),
    });
  /** Step `i` of the trace, named by its kind (`fs.rename`, `s3.PutObject … answered`) and how many came before. */
  function drawn(steps: Array<[number, string]>, i: number): CrashPoint {
    const what = steps[i]?.[1] ?? "";
    const kind = what.split(" ")[0]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const re = new RegExp(what.endsWith(" answered") ? `^${kind} .* answered$` : `^${kind}(?!.* answered$)`);
    return { match: re.source, nth: occurrences(steps.slice(0, i + 1), re) };
  }

  it("session clean: every handle the transcript cites reads back verified from the bucket after the restart", async () => {
    const session = bloatedSession({ turns: 3, outputChars: 20_000 });
    const hostState = async () => {
      const g = await gatewayState("clean");
      const transcript = await writeHostSession(g.state, "main", session);
      await fsp.writeFile(
        path.join(g.state, "agents", "main", "sessions", "sessions.json"),
        JSON.stringify({ [KEY]: { sessionId: session.sessionId } }),
      );
      return { ...g, transcript };
    };
    const argv = ["session", "clean", "--all"];
    const counted = await runUntil(await hostState(), argv, null);
    expect(counted.exit.code, counted.stderr).toBe(0);
    const commit = /^fs\.renameSync .*\.tmp-.*\.jsonl/;
    expect(occurrences(counted.steps, commit), "the stubbed transcript replaces the original once").toBe(1);
    const points = chooseSteps(counted.steps, [
      // Every output stashed, the stubbed transcript about to replace the original.
      first(commit),
      // The transcript stubbed, the last uploads not done.
      first(commit, 1),
      // The last blob in the bucket, its spool marker still here, its meta not uploaded.
      last(/^s3\.PutObject .*\/blobs\/.* answered$/),
    ]);
    expect(points.filter((p) => p.nth > 0)).toHaveLength(points.length);

    const citedAt: number[] = [];
    for (const at of points) {
      const g = await hostState();
      const where = await crashAt(g, argv, at);
      expect(await restartAndDrain(g), where).toBe(true);
      const text = readFileSync(g.transcript, "utf8");
      const handles = [...new Set(text.match(HANDLE) ?? [])];
      // Either the transcript as it was, or stubs citing what was taken out of it.
      if (handles.length === 0) expect(text, where).toBe(session.text);
      const fresh = fromBucketAlone(g);
      for (const handle of handles)
        expect((await fresh.store.read(handle)).length, `${where} ${handle}`).toBeGreaterThan(0);
      await fresh.spool?.close();
      citedAt.push(handles.length);
    }
    // The step after the replace found the transcript stubbed: the reads above checked real citations.
    expect(citedAt[1], "handles cited after a crash right after the replace").toBeGreaterThanOrEqual(
      session.tools.length,
    );
  }, 180_000);

  it("artifact migrate --to s3: a rerun after the crash leaves every handle verified in the bucket", async () => {
    const outputs = Array.from({ length: 4 }, (_, i) =>
      Array.from({ length: 400 }, (_, j) => `${i} ${j} ${randomBytes(8).toString("hex")}`).join("\n"),
    );
    const withStore = async () => {
      const g = await gatewayState("migrate");
      const local = createArtifactStore({ root: artifactRoot(g.ledgerRoot, "main") });
      const handles: string[] = [];
      for (const text of outputs) handles.push((await local.stash(text, { kind: "tool-output" })).handle);
      return { ...g, handles };
    };
    const argv = ["artifact", "migrate", "--to", "s3"];
    const counted = await runUntil(await withStore(), argv, null);
    expect(counted.exit.code, counted.stderr).toBe(0);
    const points = chooseSteps(counted.steps, [
      // A blob uploaded, its meta not yet.
      first(/^s3\.PutObject .*\/blobs\/.* answered$/),
      // A meta uploaded, not yet read back nor journaled.
      first(/^s3\.PutObject .*\/meta\/.* answered$/),
      // The journal line of a verified artifact being written.
      first(/^fs\.appendFile /),
    ]);
    expect(points.filter((p) => p.nth > 0)).toHaveLength(points.length);

    for (const at of points) {
      const g = await withStore();
      const where = await crashAt(g, argv, at);
      const rerun = await runWith(runCli, argv, g.env);
      expect(rerun.code, `${where}\n${rerun.stderr}`).toBe(0);
      const fresh = fromBucketAlone(g);
      for (const [i, handle] of g.handles.entries())
        expect(await fresh.store.readText(handle), `${where} ${handle}`).toBe(outputs[i]);
      await fresh.spool?.close();
    }
  }, 180_000);
});
