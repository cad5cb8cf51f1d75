import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { artifactPaths } from "../../src/artifacts/format/blob-path.js";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { DOCTOR_SCHEMA, runDoctorCommand, type DoctorReport } from "../../src/cli/doctor/doctor.js";
import { standaloneCommandFinding } from "../../src/cli/doctor/doctor-engine.js";
import { isSupportedHostVersion } from "../../src/host/supported-versions.js";
import { artifactRoot } from "../../src/state/paths.js";
import { makeTempState, runWith } from "./cli-fixtures.js";

const HOST_CONFIG = `{
  // written by hand, as operators do
  "plugins": {
    "slots": { "contextEngine": "context-ledger" },
    "entries": {
      "context-ledger": {
        "enabled": true,
        "config": { "agents": { "ops": { "enabled": false } }, },
      },
    },
  },
  "agents": { "list": [{ "id": "main" }, { "id": "ops" }] },
}
`;

const find = (r: DoctorReport, check: string, level?: string) =>
  r.findings.filter((f) => f.check === check && (level === undefined || f.level === level));

describe("doctor", () => {
  let env: NodeJS.ProcessEnv;
  let dir: string;
  let state: string;
  let root: string;
  let hostBin: string;
  let store: ReturnType<typeof createArtifactStore>;
  let loose: string;
  let staleTemp: string;
  let corruptHandle: string;
  let orphanMeta: string;

  beforeEach(async () => {
    ({ env, dir, state } = await makeTempState("doctor"));
    root = path.join(state, "context-ledger");
    await fsp.writeFile(path.join(state, "openclaw.json"), HOST_CONFIG);
    const hostDir = path.join(dir, "host", "node_modules", "openclaw");
    await fsp.mkdir(path.join(hostDir, "dist"), { recursive: true });
    await fsp.writeFile(path.join(hostDir, "package.json"), JSON.stringify({ name: "openclaw", version: "2026.4.24" }));
    hostBin = path.join(hostDir, "openclaw.mjs");
    await fsp.writeFile(hostBin, "");

    store = createArtifactStore({ root: artifactRoot(root, "main") });
    const good = await store.stash("healthy artifact\n".repeat(100), { kind: "tool-output" });
    const bad = await store.stash("soon corrupt\n".repeat(100), { kind: "tool-output" });
    const gone = await store.stash("blob will vanish", { kind: "tool-output" });
    corruptHandle = bad.handle;
    const badBlob = artifactPaths(store.root, bad.handle.slice(-64)).blob;
    await fsp.writeFile(badBlob, "tampered bytes");
    const goneBlob = artifactPaths(store.root, gone.handle.slice(-64));
    await fsp.rm(goneBlob.blob);
    orphanMeta = goneBlob.meta;
    loose = artifactPaths(store.root, good.handle.slice(-64)).meta;
    await fsp.chmod(loose, 0o644);
    staleTemp = path.join(path.dirname(badBlob), ".tmp-deadbeef-1234");
    await fsp.writeFile(staleTemp, "half a blob", { mode: 0o600 });
    const old = new Date(Date.now() - 5 * 60_000);
    await fsp.utimes(staleTemp, old, old);
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it("finds the loose file, the stale temp file, the orphaned meta and the corrupt blob", async () => {
    const run = await runWith(runDoctorCommand, ["--json", "--openclaw-bin", hostBin], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe("");
    const r = JSON.parse(run.stdout) as DoctorReport;
    expect(r.schema).toBe(DOCTOR_SCHEMA);
    expect(r.ok).toBe(false);
    expect(find(r, "config", "ok")).toHaveLength(1);
    expect(find(r, "slot", "ok")).toHaveLength(1);
    expect(find(r, "agents")[0]!.message).toBe("enabled for: main; disabled (pass-through) for: ops");
    expect(find(r, "host")[0]).toMatchObject({
      level: "ok",
      message: "openclaw 2026.4.24 is supported (supported: 2026.4.24 – 2026.9.x; found via --openclaw-bin)",
    });
    expect(find(r, "permissions", "error").map((f) => [f.path, f.message])).toEqual([
      [loose, "file mode 0644 is looser than 0600"],
    ]);
    expect(find(r, "temp", "warn").map((f) => f.path)).toEqual([staleTemp]);
    expect(find(r, "orphans", "warn").map((f) => f.path)).toEqual([orphanMeta]);
    const corrupt = find(r, "artifacts", "error");
    expect(corrupt[0]!.message).toContain(corruptHandle);
    expect(corrupt[0]!.corrupt).toBe(true);
    expect(corrupt[1]!.message).toBe("main: 1 of 2 artifacts verified");
    expect(r.summary).toEqual({ errors: 3, warnings: 2, fixed: 0 });
  });

  it("--fix repairs only what is safe and reports each repair", async () => {
    const run = await runWith(runDoctorCommand, ["--fix", "--json", "--openclaw-bin", hostBin], env);
    const r = JSON.parse(run.stdout) as DoctorReport;
    const fixed = r.findings.filter((f) => f.fixed).map((f) => [f.check, f.path] as [string, string]);
    expect(fixed.sort((a, b) => a[0].localeCompare(b[0]))).toEqual([
      ["orphans", orphanMeta],
      ["permissions", loose],
      ["temp", staleTemp],
    ]);
    expect(r.findings.find((f) => f.check === "permissions" && f.fixed)!.message).toBe(
      "file mode 0644 is looser than 0600; fixed: chmod 0600",
    );
    expect(r.summary).toEqual({ errors: 2, warnings: 0, fixed: 3 });
    expect(run.code).toBe(3);
    expect((await fsp.stat(loose)).mode & 0o777).toBe(0o600);
    await expect(fsp.stat(staleTemp)).rejects.toThrow();
    await expect(fsp.stat(orphanMeta)).rejects.toThrow();
    // The corrupt blob is evidence: never removed by --fix.
    expect(await store.has(corruptHandle)).toBe(true);

    await store.remove(corruptHandle);
    const clean = await runWith(runDoctorCommand, ["--openclaw-bin", hostBin], env);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("OK: 0 error(s), 0 warning(s), 0 fixed.");
  });

  it("leaves a young temp file alone", async () => {
    const young = path.join(path.dirname(staleTemp), ".tmp-inflight-1");
    await fsp.writeFile(young, "x", { mode: 0o600 });
    const r = JSON.parse(
      (await runWith(runDoctorCommand, ["--fix", "--json", "--openclaw-bin", hostBin], env)).stdout,
    ) as DoctorReport;
    expect(find(r, "temp", "info").map((f) => f.path)).toEqual([young]);
    expect(await fsp.readFile(young, "utf8")).toBe("x");
  });

  it("shows verification progress on a terminal only, and a readable table", async () => {
    const tty = await runWith(runDoctorCommand, ["--openclaw-bin", hostBin], env, { stderrTty: true });
    expect(tty.stderr).toContain("verifying main 2/2");
    expect(tty.stdout).toMatch(/^ {2}error {2}permissions {2}file mode 0644 is looser than 0600$/m);
    expect(tty.stdout).toContain("Run with --fix for the safe repairs.");
  });

  it("reports an unselected slot, an invalid config and an unsupported host", async () => {
    await fsp.writeFile(
      path.join(state, "openclaw.json"),
      JSON.stringify({ plugins: { entries: { "context-ledger": { config: { offload: { maxChars: "big" } } } } } }),
    );
    await fsp.writeFile(
      path.join(path.dirname(hostBin), "package.json"),
      JSON.stringify({ name: "openclaw", version: "2026.3.1" }),
    );
    await fsp.rm(root, { recursive: true });
    const r = JSON.parse(
      (await runWith(runDoctorCommand, ["--json", "--openclaw-bin", hostBin], env)).stdout,
    ) as DoctorReport;
    expect(find(r, "config", "error")[0]!.message).toContain('offload.maxChars: expected number, got `"big"` (string)');
    expect(find(r, "slot", "info")[0]!.message).toContain("plugins.slots.contextEngine is unset");
    expect(find(r, "host", "error")[0]!.message).toContain("openclaw 2026.3.1 is NOT supported");
    // The host refuses an openclaw.json whose plugin config is invalid: no agent runs context-ledger.
    expect(find(r, "agents")[0]!.message).toMatch(/^enabled for: none while the plugin config is invalid/);
    expect((await runWith(runDoctorCommand, ["--openclaw-bin", hostBin], env)).code).toBe(5);
  });

  it("knows the supported host range", () => {
    expect(["2026.4.24", "2026.4.30", "2026.5.1", "2026.9.6", "2026.9.30-beta.1"].map(isSupportedHostVersion)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["2026.4.23", "2026.10.1", "2025.12.1", "2027.1.1", "latest"].map(isSupportedHostVersion)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("prints the command that has the host check openclaw.json, naming a state dir other than the shell's", async () => {
    await fsp.rm(root, { recursive: true });
    const r = JSON.parse(
      (await runWith(runDoctorCommand, ["--json", "--openclaw-bin", hostBin], env)).stdout,
    ) as DoctorReport;
    expect(find(r, "host-config")[0]).toMatchObject({ level: "info", path: path.join(state, "openclaw.json") });
    expect(find(r, "host-config")[0]!.message).toMatch(/To have the host check it: `openclaw config validate`$/);
    // Doctor pointed elsewhere than $OPENCLAW_STATE_DIR: the printed command carries the state dir it read.
    const other = path.join(dir, "other state");
    await fsp.mkdir(other);
    await fsp.writeFile(path.join(other, "openclaw.json"), HOST_CONFIG);
    const elsewhere = JSON.parse(
      (await runWith(runDoctorCommand, ["--json", "--openclaw-state", other], env)).stdout,
    ) as DoctorReport;
    expect(find(elsewhere, "host-config")[0]!.message).toContain(
      `\`OPENCLAW_STATE_DIR='${other}' openclaw config validate\``,
    );
  });

  it("reads an installed but unselected engine as switched off: exit 0 and the command that turns it on", async () => {
    await fsp.rm(root, { recursive: true });
    const config = JSON.parse(
      JSON.stringify({
        plugins: { slots: { contextEngine: "legacy" }, entries: { "context-ledger": { enabled: true } } },
      }),
    );
    await fsp.writeFile(path.join(state, "openclaw.json"), JSON.stringify(config));
    const run = await runWith(runDoctorCommand, ["--openclaw-bin", hostBin], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'context-ledger is off: plugins.slots.contextEngine is "legacy", so the host runs "legacy". To switch it on: `openclaw config set plugins.slots.contextEngine context-ledger` (then restart the gateway)',
    );
    expect(run.stdout).toMatch(
      /^ {2}info {3}agents +enabled for: none while plugins\.slots\.contextEngine is "legacy"/m,
    );
    expect(run.stdout).toContain("OK: 0 error(s), 0 warning(s), 0 fixed.");

    config.plugins.slots.contextEngine = "context-ledger";
    config.plugins.entries["context-ledger"].enabled = false;
    await fsp.writeFile(path.join(state, "openclaw.json"), JSON.stringify(config));
    const disabled = await runWith(runDoctorCommand, ["--openclaw-bin", hostBin], env);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain(
      'context-ledger is off: plugins.entries["context-ledger"].enabled is false, so the host does not load the plugin. To switch it back on: `openclaw config set plugins.entries.context-ledger.enabled true`',
    );

    // Off for one agent only: the others still run it, and doctor says which.
    config.plugins.entries["context-ledger"] = { enabled: true, config: { agents: { ops: { enabled: false } } } };
    await fsp.writeFile(
      path.join(state, "openclaw.json"),
      JSON.stringify({ ...config, agents: { list: [{ id: "main" }, { id: "ops" }] } }),
    );
    const oneAgent = await runWith(runDoctorCommand, ["--json", "--openclaw-bin", hostBin], env);
    expect(oneAgent.code).toBe(0);
    expect(find(JSON.parse(oneAgent.stdout) as DoctorReport, "agents")[0]).toMatchObject({
      level: "info",
      message: "enabled for: main; disabled (pass-through) for: ops",
    });
  });

  it("names the standalone command from plugins.load.paths when it runs from the host's scratch copy", async () => {
    const plugin = path.join(dir, "plugin");
    await fsp.mkdir(path.join(plugin, "dist", "src", "cli"), { recursive: true });
    await fsp.writeFile(path.join(plugin, "package.json"), JSON.stringify({ name: "openclaw-context-ledger" }));
    await fsp.writeFile(path.join(plugin, "dist", "src", "cli", "main.js"), "");
    const scratch = path.join(dir, "openclaw-plugin-build-x1", "dist", "src", "cli", "main.js");
    const found = await standaloneCommandFinding([path.join(dir, "elsewhere"), plugin], scratch);
    expect(found.message).toMatch(/^standalone: `node \S+\/plugin\/dist\/src\/cli\/main\.js status`/);
    expect(found.message).not.toContain("openclaw-plugin-build-");
    // An installed plugin lives in <state>/extensions/context-ledger, which doctor looks in too.
    const installed = path.join(state, "extensions", "context-ledger");
    await fsp.cp(plugin, installed, { recursive: true });
    const r = JSON.parse((await runWith(runDoctorCommand, ["--json"], env)).stdout) as DoctorReport;
    expect(find(r, "command")[0]!.message).toContain(
      `\`node ${path.join(installed, "dist", "src", "cli", "main.js")} status\``,
    );
    const none = await standaloneCommandFinding([], scratch);
    expect(none.message).toMatch(/^standalone: `node <plugin folder>\/dist\/src\/cli\/main\.js status`/);
  });
});
