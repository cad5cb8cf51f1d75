/**
 * The operator's install path: `npm pack`, then
 * `openclaw plugins install <tarball>` into a clean 2026.9.6 state, select the
 * engine, and run one embedded turn with a tool call through it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHostEnv, type HostEnv } from "./host-env.js";
import { CURRENT_HOST, NODE_BINARY, REPO_ROOT } from "./host-install.js";
import { lifecycleSummary, readPluginEvents } from "./logs.js";
import { startMockModel, type MockModel } from "./mock-model.js";
import { execTurnScript } from "./mock-scripts.js";
import { agentLocal, pluginsInstall } from "./openclaw-cli.js";

describe("install path on 2026.9.6: npm pack → openclaw plugins install → a turn", () => {
  let env: HostEnv | undefined;
  let mock: MockModel | undefined;
  const packDir = mkdtempSync(path.join(os.tmpdir(), "cl-pack-"));

  afterAll(async () => {
    await mock?.close();
    await env?.cleanup();
    rmSync(packDir, { recursive: true, force: true });
  });

  it("installs the packed tarball and the engine serves a tool turn", async () => {
    // No silent skip: the tarball packs dist/, which `npm run build` makes (npm test does).
    expect(existsSync(path.join(REPO_ROOT, "dist", "index.js")), "dist/index.js missing: run `npm run build`").toBe(
      true,
    );
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", packDir], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...process.env, npm_config_ignore_scripts: "true" },
    });
    const tarball = path.join(packDir, (JSON.parse(out) as { filename: string }[])[0]?.filename ?? "");
    expect(existsSync(tarball)).toBe(true);

    mock = await startMockModel({
      script: execTurnScript({ outputChars: 20_000, answerChars: 500, nodePath: NODE_BINARY }),
    });
    env = await createHostEnv({
      version: CURRENT_HOST,
      baseUrl: mock.baseUrl,
      engine: "legacy",
      contextWindow: 32_000,
    });
    const installed = await pluginsInstall(env, tarball);
    expect(installed.code, installed.stderr.slice(-1500)).toBe(0);
    await env.updateConfig({
      plugins: { slots: { contextEngine: "context-ledger" }, entries: { "context-ledger": { enabled: true } } },
    });

    const turn = await agentLocal(env, { sessionId: "install-path", message: "Run the report and summarize it." });
    expect(turn.code).toBe(0);
    const events = await readPluginEvents(env);
    console.log(`[install-path] ${lifecycleSummary(events)}`);
    expect(events.some((e) => e.op === "assemble")).toBe(true);
    expect(events.some((e) => e.op === "commitTurn" && e.status === "committed")).toBe(true);
    // Loaded from the install, not from a load path: the config names no path to this repo.
    expect(readFileSync(env.configPath, "utf8")).not.toContain(REPO_ROOT);
  });
});
