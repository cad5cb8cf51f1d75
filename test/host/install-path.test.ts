/**
 * The operator's install path on every line: `npm pack`, then that line's documented
 * `openclaw plugins install` command (test/host/install-commands.ts) in a fresh state dir, the
 * slot the installer leaves (doctor's `openclaw config set` command where it is not context-ledger,
 * and on the oldest and newest line), and `openclaw plugins inspect context-ledger` finding it
 * loaded from the install with its engine registered. On 2026.4.24 and 2026.9.6, on the state that install left, a
 * gateway turn through the installed engine that offloads an output, then the way out: the operator guide's uninstall
 * commands, and the stub's own fallback command run verbatim.
 * 2026.4.24 runs with its bundled plugins disabled and the harness's staging cache, as every
 * host test does: a fresh 2026.4.24 stages its bundled plugins' dependencies on the first
 * command (minutes, whatever is installed).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHostEnv, type HostEnv } from "./host-env.js";
import { startGateway } from "./gateway.js";
import { INSTALL_FLAGS, inspectArgs, UNINSTALL_STEPS } from "./install-commands.js";
import { CURRENT_HOST, HOST_LINES, NODE_BINARY, REPO_ROOT, RESET_LOOP_HOST, type HostVersion } from "./host-install.js";
import { lifecycleSummary, readPluginEvents } from "./logs.js";
import { startMockModel, type MockModel } from "./mock-model.js";
import { execTurnScript, printedChars } from "./mock-scripts.js";
import { extractJson, inspectedContextEngineIds, runOpenclaw } from "./openclaw-cli.js";
import { spawnGroup } from "./processes.js";
import { pollUntil } from "./settle.js";

describe("install path: npm pack → each line's documented command → inspect finds the plugin", () => {
  const envs: HostEnv[] = [];
  const installed = new Map<HostVersion, HostEnv>();
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
    const install = await runOpenclaw(env, ["plugins", "install", tarball, ...INSTALL_FLAGS[version]]);
    expect(install.code, `${install.stdout.slice(-1500)}\n${install.stderr.slice(-1500)}`).toBe(0);
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
    installed.set(version, env);
    console.log(
      `[install-path] ${version}: install ${(install.ms / 1000).toFixed(1)} s, ${selectMs ? `config set ${(selectMs / 1000).toFixed(1)} s, ` : ""}inspect ${(inspected.ms / 1000).toFixed(1)} s`,
    );
  });

  it.each([RESET_LOOP_HOST, CURRENT_HOST])(
    "%s: the installed engine offloads a turn's output; uninstalled as documented, legacy runs and the stub's fallback prints it",
    async (version) => {
      const env = installed.get(version);
      expect(env, `the ${version} install above failed`).toBeDefined();
      await wayOut(env as HostEnv, mock as MockModel, path.dirname(tarball));
    },
    600_000,
  );
});

/** Outputs of the way-out session: `exec` prints this many chars (the install turns' script). */
const OUTPUT_CHARS = 20_000;

/**
 * A session that offloads an output and sends a `/ledger` command, the gateway stopped by PID, the guide's uninstall,
 * the gateway again on `legacy`, then the fallback command of the stub the model was shown, run verbatim in the
 * tarball's folder with npm kept off the network.
 */
async function wayOut(env: HostEnv, mock: MockModel, tarballDir: string): Promise<void> {
  const version = env.host.version;
  const session = "agent:main:way-out";
  const started = Date.now();
  const gateway = await startGateway(env);
  try {
    const turn = await gateway.chatSend(session, "Run the report and summarize it.");
    expect(turn.wait.status, JSON.stringify(turn.wait)).toBe("ok");
    // The paydown that writes the transcript's stub runs in maintain() after the turn.
    const events = await pollUntil(
      () => readPluginEvents(env),
      (e) => e.some((x) => x.op === "paydown" && x.changed === true),
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(events.filter((e) => e.op === "paydown").map((e) => e.changed)).toContain(true);
    // The installed engine served the turn: 2026.9.6 commits it through commitTurn, 2026.4.24 through afterTurn.
    const ingest = version === CURRENT_HOST ? "commitTurn" : "afterTurn";
    expect(events.some((e) => e.op === "assemble")).toBe(true);
    expect(events.some((e) => e.op === ingest && (ingest === "afterTurn" || e.status === "committed"))).toBe(true);
    console.log(`[install-path] ${version}: ${lifecycleSummary(events)}`);
    const command = await gateway.chatSend(session, "/ledger status");
    expect(command.wait.status, JSON.stringify(command.wait)).toBe("ok");
  } finally {
    await gateway.stop();
  }

  let uninstallMs = 0;
  for (const step of UNINSTALL_STEPS) {
    const ran = await runOpenclaw(env, [...step]);
    expect(ran.code, `${step.join(" ")}\n${ran.stdout.slice(-1500)}\n${ran.stderr.slice(-1500)}`).toBe(0);
    uninstallMs += ran.ms;
  }
  const config = JSON.parse(readFileSync(env.configPath, "utf8")) as {
    plugins?: { slots?: Record<string, string>; entries?: Record<string, { config?: unknown }> };
  };
  expect(config.plugins?.entries?.["context-ledger"]?.config).toBeUndefined();
  expect(config.plugins?.slots?.contextEngine).toBe("legacy");
  expect(existsSync(path.join(env.stateDir, "extensions", "context-ledger"))).toBe(false);

  const eventsBefore = (await readPluginEvents(env)).length;
  const legacy = await startGateway(env);
  const before = mock.requests.length;
  try {
    const turn = await legacy.chatSend(session, "What did the report say?");
    expect(turn.wait.status, JSON.stringify(turn.wait)).toBe("ok");
  } finally {
    await legacy.stop();
  }
  const after = (await readPluginEvents(env)).slice(eventsBefore).map((e) => e.op);
  expect(after, "context-ledger's events in the gateway after the uninstall").toEqual([]);
  const seen = mock.requests[before];
  expect(seen, "the legacy turn asked the model").toBeDefined();
  const shown = JSON.stringify(seen?.messages);
  // What another engine makes of the earlier `/ledger status` (figures for the guide): its text and its reply.
  const commandsShown = (shown.match(/\/ledger status/g) ?? []).length;
  const repliesShown = (shown.match(/context-ledger · agent /g) ?? []).length;
  // The stub legacy shows the model is the transcript's, with its fallback line.
  const handle = /\[context-ledger artifact ledger:v1:sha256:([0-9a-f]{64})\]/.exec(shown)?.[1];
  const fallback = /Uninstalled: `([^`]+)`/.exec(shown)?.[1];
  expect(handle, shown.slice(0, 2000)).toBeDefined();
  expect(fallback).toMatch(
    /^npx --yes --offline -p \.\/openclaw-context-ledger-[\d.]+\.tgz context-ledger artifact fetch [0-9a-f]{12} --raw$/,
  );

  // Verbatim, in the folder of the tarball the operator installed from, with npm's network gone: the install filled
  // npm's cache in this HOME.
  const ran = await runShell(fallback as string, tarballDir, {
    ...env.env,
    npm_config_proxy: "http://127.0.0.1:9",
    npm_config_https_proxy: "http://127.0.0.1:9",
  });
  expect(ran.code, ran.stderr.slice(-2000)).toBe(0);
  expect(createHash("sha256").update(ran.stdout).digest("hex")).toBe(handle);
  expect(ran.stdout.toString("utf8")).toBe(printedChars(OUTPUT_CHARS));
  console.log(
    `[install-path] ${version} way out: uninstall ${(uninstallMs / 1000).toFixed(1)} s, fallback ${(ran.ms / 1000).toFixed(1)} s ` +
      `(${ran.stdout.length} bytes, sha256 = handle), in the legacy prompt: \`/ledger status\` ${commandsShown}×, its reply ${repliesShown}×; ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s in all`,
  );
}

/** Runs `command` with `sh -c` (as an operator pastes it) and collects its output as bytes. */
async function runShell(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: Buffer; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawnGroup("sh", ["-c", command], { env, cwd });
  const out: Buffer[] = [];
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => out.push(d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => {
    child.once("error", () => resolve(null));
    child.once("close", (c) => resolve(c));
  });
  return { code, stdout: Buffer.concat(out), stderr, ms: Date.now() - started };
}
