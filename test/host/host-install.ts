import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import lockfile from "proper-lockfile";
import { memoryTmpRoot } from "../support/memory-tmp.js";

const execFileAsync = promisify(execFile);

/** Every host release the suite drives, oldest first. */
export const HOST_LINES = ["2026.4.24", "2026.5.28", "2026.6.11", "2026.7.35", "2026.8.2", "2026.9.6"] as const;

/** One host release the suite drives. */
export type HostVersion = (typeof HOST_LINES)[number];

/** The current host (dev dependency). */
export const CURRENT_HOST: HostVersion = "2026.9.6";
/** The release whose raw-transcript precheck reset sessions. */
export const RESET_LOOP_HOST: HostVersion = "2026.4.24";

/** Root of the working tree (the plugin root). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Folder of the Node 24 binary from the project's dev dependency; put first in children's PATH. */
export const NODE_BIN_DIR = path.join(REPO_ROOT, "node_modules", ".bin");

/** The Node 24 binary children run on. */
export const NODE_BINARY = path.join(NODE_BIN_DIR, "node");

/** Git-ignored cache folder that survives between runs on one machine. */
export const CACHE_DIR = path.join(REPO_ROOT, ".cache");

/** A host release ready to run. */
export interface InstalledHost {
  version: HostVersion;
  /** The `openclaw` package folder. */
  packageDir: string;
  /** `openclaw.mjs`, the CLI entry. */
  entry: string;
  /** `OPENCLAW_PLUGIN_STAGE_DIR` for this release, when it stages bundled plugins. */
  stageDir?: string;
}

/**
 * Where a release lives: 9.6 in the project's node_modules, others in `.cache/openclaw-<version>` (git-ignored,
 * installed on demand).
 */
export function hostPackageDir(version: HostVersion): string {
  if (version === CURRENT_HOST) return path.join(REPO_ROOT, "node_modules", "openclaw");
  return path.join(CACHE_DIR, `openclaw-${version}`, "node_modules", "openclaw");
}

async function installedVersion(packageDir: string): Promise<string | undefined> {
  try {
    const pkg = JSON.parse(await fsp.readFile(path.join(packageDir, "package.json"), "utf8")) as { version?: string };
    return pkg.version;
  } catch {
    return undefined;
  }
}

const pending: Map<HostVersion, Promise<InstalledHost>> = new Map();

/**
 * Returns a runnable host of `version`, installing a release other than the dev
 * dependency into the git-ignored `.cache/openclaw-<version>` first when it is missing (`npm install --ignore-scripts`,
 * ~1 min, ~650 MB; the npm output goes to `install.log` there). 2026.4.24's bundled-plugin dependencies are staged
 * under the same lock when its stage is empty (`host-stage.ts`; {@link stageDirFor}) and reused between runs.
 */
export function ensureHost(version: HostVersion): Promise<InstalledHost> {
  let promise = pending.get(version);
  if (!promise) {
    promise = installHost(version);
    promise.catch(() => pending.delete(version));
    pending.set(version, promise);
  }
  return promise;
}

async function installHost(version: HostVersion): Promise<InstalledHost> {
  const packageDir = hostPackageDir(version);
  const host: InstalledHost = { version, packageDir, entry: path.join(packageDir, "openclaw.mjs") };
  // Only 2026.4.24 stages bundled-plugin dependencies at run time (HOST-FACTS).
  if (version === RESET_LOOP_HOST) host.stageDir = stageDirFor(version);
  if (version === CURRENT_HOST) {
    if ((await installedVersion(packageDir)) === version && existsSync(host.entry)) return host;
    throw new Error(`Expected openclaw@${version} in ${packageDir} (dev dependency); run npm install first`);
  }
  // One installer per release across processes (the host project's global setup starts
  // installs while unit tests run; a test file that needs the release waits here). An
  // install in progress holds the lock folder, so "installed" also means "no lock".
  const lockPath = path.join(CACHE_DIR, `openclaw-${version}.install.lock`);
  const installed = async (): Promise<boolean> =>
    (await installedVersion(packageDir)) === version && existsSync(host.entry);
  // 2026.4.24 is ready once its bundled plugins' dependencies are staged too (host-stage.ts), under the same lock.
  // The stage's install root is fenced only once the release is installed: the host hashes its real path.
  const stage = host.stageDir;
  const ready = async (): Promise<boolean> =>
    (await installed()) && (!stage || isStaged(await fenceStageInstallRoot(stage, packageDir, version)));
  if (!(await ready()) || existsSync(lockPath)) {
    await fsp.mkdir(CACHE_DIR, { recursive: true });
    // proper-lockfile keys its in-process lock table by the locked path: one path per release, or two
    // concurrent installs share an entry and the first release crashes the other's refresh timer.
    const release = await lockfile.lock(path.join(CACHE_DIR, `openclaw-${version}`), {
      realpath: false,
      lockfilePath: lockPath,
      // Refreshed every 5 s while held; a loaded machine can delay that by seconds, and a
      // lock left by a killed run must not block the next one for long.
      stale: 60_000,
      update: 5_000,
      retries: { retries: 1_200, minTimeout: 1_000, maxTimeout: 1_000 },
      onCompromised: () => undefined,
    });
    try {
      if (!(await installed())) await npmInstallHost(version, packageDir);
      const installRoot = stage ? await fenceStageInstallRoot(stage, packageDir, version) : undefined;
      if (installRoot && !isStaged(installRoot)) {
        const { stageBundledPlugins } = await import("./host-stage.js");
        await stageBundledPlugins(host, installRoot);
      }
    } finally {
      await release().catch(() => undefined);
    }
  }
  return host;
}

/**
 * Where 2026.4.24 stages its bundled plugins' dependencies (about 600 MB, installed by its first run) and mirrors
 * each bundled plugin it loads: every gateway's first turn copies about 800 files there synchronously, which held
 * the event loop 30-120 s on this VM's disk before the first model request and 11 s on tmpfs. A memory-backed
 * folder when there is one with room, else `.cache/`.
 */
function stageDirFor(version: HostVersion): string {
  const memory = memoryTmpRoot(4 * 1024 ** 3);
  if (memory === os.tmpdir()) return path.join(CACHE_DIR, `openclaw-${version}-stage`);
  return path.join(memory, `context-ledger-openclaw-${version}-stage`);
}

async function npmInstallHost(version: HostVersion, packageDir: string): Promise<void> {
  const dir = path.join(CACHE_DIR, `openclaw-${version}`);
  await fsp.mkdir(dir, { recursive: true });
  await fsp.writeFile(
    path.join(dir, "package.json"),
    `${JSON.stringify({ name: `openclaw-host-${version}`, private: true, dependencies: { openclaw: version } }, null, 2)}\n`,
  );
  const args = ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", `openclaw@${version}`];
  try {
    const [command, ...commandArgs] = lowPriority(["npm", ...args]);
    const { stdout, stderr } = await execFileAsync(command as string, commandArgs, {
      cwd: dir,
      env: { ...process.env, PATH: `${NODE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}` },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 15 * 60_000,
    });
    await fsp.writeFile(path.join(dir, "install.log"), `${stdout}\n${stderr}`);
  } catch (error) {
    throw new Error(`npm ${args.join(" ")} failed in ${dir}`, { cause: error });
  }
  const got = await installedVersion(packageDir);
  if (got !== version)
    throw new Error(`Expected openclaw@${version} in ${packageDir} after install, got ${String(got)}`);
}

/**
 * `argv` at the lowest CPU and I/O priority where `nice` and `ionice` exist (Linux). The global setup installs every
 * missing line at once while the unit and soak files run; at equal priority the five installs (about 100 CPU seconds,
 * 350 MB each) took most of both cores for the first 100 s of a clean clone's run, and the fuzz and crash files took
 * three to four times as long as alone. The lines are needed only when the host files start, minutes later.
 */
export function lowPriority(argv: string[]): string[] {
  if (process.platform !== "linux") return argv;
  const onPath = (name: string): boolean =>
    (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && existsSync(path.join(dir, name)));
  let out = argv;
  if (onPath("nice")) out = ["nice", "-n", "19", ...out];
  if (onPath("ionice")) out = ["ionice", "-c", "3", "-t", ...out];
  return out;
}

/**
 * 2026.4.24 stages bundled-plugin dependencies by running `npm install <specs>` in
 * `<stage>/openclaw-<version>-<sha256(package dir)[0..12]>` without a package.json
 * there, so npm walks up to the nearest package.json, which under `.cache/` is the
 * project's own: it rewrote the repo's node_modules (seen here, twice: the second time
 * because the host hashes the package dir's real path and `.cache/openclaw-<v>` was a
 * symlink). A package.json in the folder of both hashes (as given and real path), and one
 * at the stage root as a catch-all, keep npm inside the stage folder.
 */
export async function fenceStageInstallRoot(stageDir: string, packageDir: string, version: string): Promise<string> {
  await fsp.mkdir(stageDir, { recursive: true });
  const roots = new Set([
    path.resolve(packageDir),
    await fsp.realpath(packageDir).catch(() => path.resolve(packageDir)),
  ]);
  const installRoots = [...roots].map((dir) =>
    path.join(stageDir, `openclaw-${version}-${createHash("sha256").update(dir).digest("hex").slice(0, 12)}`),
  );
  for (const dir of [stageDir, ...installRoots]) {
    await fsp.mkdir(dir, { recursive: true });
    const pkg = path.join(dir, "package.json");
    if (!existsSync(pkg)) {
      await fsp.writeFile(
        pkg,
        `${JSON.stringify({ name: "openclaw-runtime-deps-install", private: true }, null, 2)}\n`,
      );
    }
  }
  // The real path is the one the host uses (Node resolves the entry's symlinks).
  return installRoots.at(-1) ?? stageDir;
}

/** Whether a stage install root (from {@link fenceStageInstallRoot}) holds the host's staged dependencies. */
export function isStaged(installRoot: string): boolean {
  // The host writes this file there once it has installed the dependencies.
  return existsSync(path.join(installRoot, ".openclaw-runtime-deps.json"));
}

/** Ids of a release's bundled plugins (from each `dist/extensions/<dir>/openclaw.plugin.json`). */
export async function bundledPluginIds(host: InstalledHost): Promise<string[]> {
  const root = path.join(host.packageDir, "dist", "extensions");
  const ids: string[] = [];
  for (const dir of (await fsp.readdir(root)).sort()) {
    try {
      const manifest = JSON.parse(await fsp.readFile(path.join(root, dir, "openclaw.plugin.json"), "utf8")) as {
        id?: unknown;
      };
      if (typeof manifest.id === "string") ids.push(manifest.id);
    } catch {
      // Folders without a manifest (shared cores) are not plugins.
    }
  }
  return ids;
}
