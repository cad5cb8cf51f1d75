import { randomBytes } from "node:crypto";
import { existsSync, promises as fsp } from "node:fs";
import path from "node:path";
import { memoryTmpRoot } from "../support/memory-tmp.js";
import { writeTestEnginePlugin, TEST_ENGINE_ID, type TestEngineMode } from "./fixtures-plugin.js";
import { mockProvider } from "./wire-agents.js";
import {
  bundledPluginIds,
  CACHE_DIR,
  ensureHost,
  NODE_BIN_DIR,
  REPO_ROOT,
  type HostVersion,
  type InstalledHost,
} from "./host-install.js";

/** The context-ledger plugin and engine id. */
export const LEDGER_ID = "context-ledger";

/**
 * The shell each line's gateways find in `SHELL`, which the host's `exec` runs commands with (`getShellConfig`; with
 * none set it falls back to `sh`, dash on Debian, and skips its shell snapshot). Set here, never inherited, so a
 * run means the same on a developer's login shell and on CI, where `SHELL` is unset. Most lines run as a user's
 * login gateway does, under bash; 2026.5.28 and 2026.6.11 as a service manager starts one, with no `SHELL`, so
 * their full-exec scenarios wrap commands for dash through the real host.
 */
export const GATEWAY_SHELL: Readonly<Record<HostVersion, string | undefined>> = {
  "2026.4.24": "/bin/bash",
  "2026.5.28": undefined,
  "2026.6.11": undefined,
  "2026.7.35": "/bin/bash",
  "2026.8.2": "/bin/bash",
  "2026.9.6": "/bin/bash",
};

/** Which engine fills `plugins.slots.contextEngine`. */
export type EngineChoice = "context-ledger" | "legacy" | { testEngine: TestEngineMode };

/** Options for {@link createHostEnv}. */
export interface HostEnvOptions {
  version: HostVersion;
  /** `baseUrl` of the mock (or a real) OpenAI-compatible endpoint. */
  baseUrl: string;
  /** Model id at that endpoint. @default "mock-model" */
  modelId?: string;
  /** Advertised context window, the knob that makes overflow reachable. @default 128000 */
  contextWindow?: number;
  /** @default 4096 */
  maxTokens?: number;
  /** @default "context-ledger" */
  engine?: EngineChoice;
  /**
   * Folder loaded as the context-ledger plugin. @default a copy of the working tree's built plugin ({@link
   * stageLedgerPlugin})
   */
  ledgerDir?: string;
  /** `plugins.entries["context-ledger"].config`. @default {} */
  ledgerConfig?: Record<string, unknown>;
  /** Deep-merged over the generated `openclaw.json` last. */
  extraConfig?: Record<string, unknown>;
  /** The release, when the caller holds it already (the installer itself). @default `ensureHost(version)` */
  host?: InstalledHost;
}

/** An isolated host state: temp HOME, state dir, config, log file. */
export interface HostEnv {
  host: InstalledHost;
  /** The temp root that holds everything below. */
  root: string;
  home: string;
  stateDir: string;
  configPath: string;
  /** The host's log file (`logging.file`), instead of `/tmp/openclaw/...`. */
  hostLogPath: string;
  /** Engine id in the context-engine slot (`legacy` for the built-in one). */
  engineId: string;
  /** The engine plugin's own events.jsonl (context-ledger or the test engine). */
  eventLogPath: string;
  /** Gateway auth token. */
  gatewayToken: string;
  /** The environment every child process gets. */
  env: NodeJS.ProcessEnv;
  /** The config as written. */
  config: Record<string, unknown>;
  /** Rewrites `openclaw.json` after merging `patch` into the config. */
  updateConfig(patch: Record<string, unknown>): Promise<void>;
  /** Removes the temp root (kept when `CONTEXT_LEDGER_KEEP_HOST_TMP=1`). */
  cleanup(): Promise<void>;
}

/**
 * Creates an isolated host state in a fresh temp folder and writes its `openclaw.json`:
 * the mock provider as the primary model, small predictable prompts, the chosen engine
 * in the context-engine slot, and on 2026.4.24 every bundled plugin but `speech-core`
 * disabled (its first run would otherwise try to npm-install their dependencies).
 */
export async function createHostEnv(options: HostEnvOptions): Promise<HostEnv> {
  const host = options.host ?? (await ensureHost(options.version));
  // Host state in memory where there is room: the gateways' SQLite, transcripts and logs test no durability.
  const root = await fsp.mkdtemp(path.join(memoryTmpRoot(), "cl-host-"));
  const home = path.join(root, "home");
  const stateDir = path.join(root, "state");
  const tmpDir = path.join(root, "tmp");
  const workspace = path.join(root, "workspace");
  await Promise.all([home, stateDir, tmpDir, workspace].map((d) => fsp.mkdir(d, { recursive: true, mode: 0o700 })));
  await shareCompiledCode(tmpDir);
  const configPath = path.join(stateDir, "openclaw.json");
  const hostLogPath = path.join(root, "logs", "openclaw.log");
  const gatewayToken = randomBytes(16).toString("hex");
  const modelId = options.modelId ?? "mock-model";
  const engine = options.engine ?? "context-ledger";

  const loadPaths: string[] = [];
  const entries: Record<string, unknown> = {};
  let engineId = "legacy";
  if (engine === "context-ledger") {
    engineId = LEDGER_ID;
    loadPaths.push(options.ledgerDir ?? (await stageLedgerPlugin(path.join(root, "plugins", LEDGER_ID))));
    entries[LEDGER_ID] = { enabled: true, config: options.ledgerConfig ?? {} };
  } else if (engine !== "legacy") {
    engineId = TEST_ENGINE_ID;
    loadPaths.push(await writeTestEnginePlugin(path.join(root, "test-engine"), { mode: engine.testEngine }));
    entries[TEST_ENGINE_ID] = { enabled: true };
  }
  if (options.version === "2026.4.24") {
    for (const id of await bundledPluginIds(host)) if (id !== "speech-core") entries[id] = { enabled: false };
  }

  let config: Record<string, unknown> = {
    models: {
      providers: {
        mock: mockProvider(options.baseUrl, "openai-completions", modelId, {
          contextWindow: options.contextWindow ?? 128_000,
          maxTokens: options.maxTokens ?? 4096,
        }),
      },
    },
    agents: {
      defaults: {
        model: { primary: `mock/${modelId}` },
        workspace,
        skipBootstrap: true,
        contextInjection: "never",
      },
    },
    plugins: {
      ...(loadPaths.length ? { load: { paths: loadPaths } } : {}),
      slots: { contextEngine: engineId },
      entries,
    },
    // The Control UI and the update check are nothing the tests drive; 2026.9.6 verifies and copies the UI's assets
    // after every start (about 1.5 CPU seconds of a 16-second start).
    gateway: {
      mode: "local",
      bind: "loopback",
      auth: { mode: "token", token: gatewayToken },
      controlUi: { enabled: false },
    },
    update: { checkOnStart: false },
    // HOST_LOG_LEVEL=debug shows the host's own budget decisions (memoryFlush / preflightCompaction checks) when
    // diagnosing a line.
    logging: { file: hostLogPath, ...(process.env.HOST_LOG_LEVEL ? { level: process.env.HOST_LOG_LEVEL } : {}) },
  };
  if (options.extraConfig) config = deepMerge(config, options.extraConfig);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_GATEWAY_TOKEN: gatewayToken,
    TMPDIR: tmpDir,
    PATH: `${NODE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}`,
    NO_COLOR: "1",
    // No channels are configured; skipping their start-up shortens gateway start.
    OPENCLAW_SKIP_CHANNELS: "1",
    // Prints where gateway start-up spends its time into the gateway output.
    OPENCLAW_GATEWAY_STARTUP_TRACE: "1",
    ...(host.stageDir ? { OPENCLAW_PLUGIN_STAGE_DIR: host.stageDir } : {}),
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(CACHE_DIR, "node-compile-cache"),
    // The host installs a plugin's dependencies with npm: from the machine's npm cache when it holds them, as a
    // user's machine that ran npm before does, without asking the registry whether each one changed.
    npm_config_prefer_offline: "true",
  };
  const shell = GATEWAY_SHELL[options.version];
  if (shell) env.SHELL = shell;
  else delete env.SHELL;
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  delete env.VITEST_POOL_ID;
  delete env.VITEST_WORKER_ID;

  const write = async (): Promise<void> => {
    await fsp.mkdir(path.dirname(hostLogPath), { recursive: true, mode: 0o700 });
    await fsp.writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  };
  await write();
  const pluginStateDir = engineId === "legacy" ? LEDGER_ID : engineId;
  return {
    host,
    root,
    home,
    stateDir,
    configPath,
    hostLogPath,
    engineId,
    eventLogPath: path.join(stateDir, pluginStateDir, "logs", "events.jsonl"),
    gatewayToken,
    env,
    get config() {
      return config;
    },
    async updateConfig(patch) {
      config = deepMerge(config, patch);
      await write();
    },
    async cleanup() {
      if (process.env.CONTEXT_LEDGER_KEEP_HOST_TMP === "1") return;
      // A host child that was just killed can still be flushing files: retry, then give up quietly.
      await fsp.rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 }).catch(() => undefined);
    },
  };
}

/**
 * Copies the built plugin (package.json, openclaw.plugin.json, dist/) from the working
 * tree into `dir`, with `node_modules` linked to the project's. 2026.9.6 refuses the
 * working tree itself ("Plugin entry is outside its captured source package"): its
 * source capture does not follow a package root that holds the whole repo.
 */
export async function stageLedgerPlugin(dir: string): Promise<string> {
  if (!existsSync(path.join(REPO_ROOT, "dist", "index.js"))) {
    throw new Error(
      `Expected the built plugin at ${path.join(REPO_ROOT, "dist", "index.js")}; run \`npm run build\` first (npm test does)`,
    );
  }
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  for (const file of ["package.json", "openclaw.plugin.json"])
    await fsp.copyFile(path.join(REPO_ROOT, file), path.join(dir, file));
  await fsp.cp(path.join(REPO_ROOT, "dist"), path.join(dir, "dist"), { recursive: true });
  await fsp.symlink(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

/** Merges plain objects recursively; arrays and scalars in `patch` replace. */
export function deepMerge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const prev = out[key];
    out[key] = isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Every env has its own TMPDIR, where the host keeps what it compiles: jiti's transpiled plugin modules
 * (`<tmpdir>/jiti`, whose place only TMPDIR decides) and Node's compile cache (`NODE_COMPILE_CACHE`, set in the
 * env). A user's gateway finds both warm after its first start; sharing them across envs gives each test gateway
 * and CLI call the same, instead of recompiling the host's modules (2026.4.24 transpiles about 130 bundled-plugin
 * files before its first turn). Both caches name entries by content hash, so host lines never collide.
 */
async function shareCompiledCode(tmpDir: string): Promise<void> {
  const shared = path.join(CACHE_DIR, "jiti");
  await fsp.mkdir(shared, { recursive: true, mode: 0o700 });
  await fsp.symlink(shared, path.join(tmpDir, "jiti"));
}
