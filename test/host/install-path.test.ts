/**
 * The operator's install path on every line: `npm pack`, then that line's documented
 * `openclaw plugins install` command (test/host/install-commands.ts) in a fresh state dir, the
 * slot the installer leaves (doctor's `openclaw config set` command where it is not context-ledger,
 * and on the oldest and newest line), and `openclaw plugins inspect context-ledger` finding it
 * loaded from the install with its engine registered; on 2026.9.6 one embedded turn with a tool
 * call through it.
 * 2026.4.24 runs with its bundled plugins disabled and the harness's staging cache, as every
 * host test does: a fresh 2026.4.24 stages its bundled plugins' dependencies on the first
 * command (minutes, whatever is installed).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHostEnv, type HostEnv } from "./host-env.js";
import { INSTALL_FLAGS, inspectArgs } from "./install-commands.js";
import { CURRENT_HOST, HOST_LINES, NODE_BINARY, REPO_ROOT } from "./host-install.js";
import { lifecycleSummary, readPluginEvents } from "./logs.js";
import { startMockModel, type MockModel } from "./mock-model.js";
import { execTurnScript } from "./mock-scripts.js";
import { agentLocal, extractJson, inspectedContextEngineIds, runOpenclaw } from "./openclaw-cli.js";

describe("install path: npm pack → each line's documented command → inspect finds the plugin", () => {
  const envs: HostEnv[] = [];
  let current: HostEnv | undefined;
  let mock: MockModel | undefined;
  let tarball = "";
  const packDir = mkdtempSync(path.join(os.tmpdir(), "cl-pack-"));

  beforeAll(() => {
    // No silent skip: the tarball packs dist/, which `npm run build` makes (npm test does).
    expect(existsSync(path.join(REPO_ROOT, "dist", "index.js")), "dist/index.js missing: run `npm run build`").toBe(
      true,
    );
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", packDir], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...process.env, npm_config_ignore_scripts: "true" },
    });
    tarball = path.join(packDir, (JSON.parse(out) as { filename: string }[])[0]?.filename ?? "");
    expect(existsSync(tarball)).toBe(true);
  });
  afterAll(async () => {
    await mock?.close();
    for (const env of envs) await env.cleanup();
    rmSync(packDir, { recursive: true, force: true });
  });

  it.each(HOST_LINES)("%s: the documented command installs the tarball and inspect finds it", async (version) => {
    mock ??= await startMockModel({
      script: execTurnScript({ outputChars: 20_000, answerChars: 500, nodePath: NODE_BINARY }),
    });
    const env = await createHostEnv({ version, baseUrl: mock.baseUrl, engine: "legacy", contextWindow: 32_000 });
    envs.push(env);
    if (version === CURRENT_HOST) current = env;
    const installed = await runOpenclaw(env, ["plugins", "install", tarball, ...INSTALL_FLAGS[version]]);
    expect(installed.code, `${installed.stdout.slice(-1500)}\n${installed.stderr.slice(-1500)}`).toBe(0);
    const slot = () =>
      (JSON.parse(readFileSync(env.configPath, "utf8")) as { plugins: { slots: Record<string, string> } }).plugins.slots
        .contextEngine;
    // 2026.8.2 keeps a slot the config already gives another engine; the other lines select context-ledger.
    const unselected = slot() !== "context-ledger";
    expect(unselected).toBe(version === "2026.8.2");
    let selectMs = 0;
    if (unselected || version === HOST_LINES[0] || version === CURRENT_HOST) {
      // Doctor's command for an installed but unselected engine, as it prints it: wherever the installer left the
      // slot elsewhere, and on the oldest and newest line after switching it off by hand (editing the file the
      // installer wrote: the harness's writer would drop the install record).
      const config = JSON.parse(readFileSync(env.configPath, "utf8")) as { plugins: { slots: Record<string, string> } };
      config.plugins.slots.contextEngine = "legacy";
      writeFileSync(env.configPath, JSON.stringify(config, null, 2));
      const selected = await runOpenclaw(env, ["config", "set", "plugins.slots.contextEngine", "context-ledger"]);
      expect(selected.code, selected.stderr.slice(-1500)).toBe(0);
      expect(slot()).toBe("context-ledger");
      selectMs = selected.ms;
    }
    const inspected = await runOpenclaw(env, inspectArgs(version), { timeoutMs: 180_000 });
    expect(inspected.code, inspected.stderr.slice(-1500)).toBe(0);
    const json = extractJson(inspected.stdout) ?? extractJson(inspected.stderr);
    expect((json as { plugin?: unknown }).plugin).toMatchObject({
      id: "context-ledger",
      status: "loaded",
      rootDir: path.join(env.stateDir, "extensions", "context-ledger"),
    });
    expect(inspectedContextEngineIds(json)).toContain("context-ledger");
    console.log(
      `[install-path] ${version}: install ${(installed.ms / 1000).toFixed(1)} s, ${selectMs ? `config set ${(selectMs / 1000).toFixed(1)} s, ` : ""}inspect ${(inspected.ms / 1000).toFixed(1)} s`,
    );
  });

  it(`${CURRENT_HOST}: the installed engine serves a tool turn`, async () => {
    expect(current, "the 2026.9.6 install above failed").toBeDefined();
    // As installed and selected above: the harness's config writer would undo the installer's record, so no rewrite.
    const env = current as HostEnv;
    const turn = await agentLocal(env, { sessionId: "install-path", message: "Run the report and summarize it." });
    expect(turn.code).toBe(0);
    const events = await readPluginEvents(env);
    console.log(`[install-path] ${lifecycleSummary(events)}`);
    expect(events.some((e) => e.op === "assemble")).toBe(true);
    expect(events.some((e) => e.op === "commitTurn" && e.status === "committed")).toBe(true);
  });
});
