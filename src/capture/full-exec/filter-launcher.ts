/**
 * Finds the programs that start the tee filter out of the command's reach ({@link FilterLauncher}). A
 * gateway without one of them (no `setsid` on macOS, a Node without `--disable-sigusr1`) runs commands
 * unwrapped: a filter the command's signals could reach, or whose inspector they could open, is worse
 * than no full capture.
 */
import { constants, existsSync, promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FilterLauncher } from "./wrap-command.js";

/** The filter script beside this module: built JavaScript, or the TypeScript source under test. */
export function teeFilterPath(): string {
  const built = fileURLToPath(new URL("./tee-filter.js", import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL("./tee-filter.ts", import.meta.url));
}

async function executable(file: string): Promise<boolean> {
  try {
    await fsp.access(file, constants.X_OK);
    return (await fsp.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` in `dirs`, or undefined. */
async function findProgram(name: string, dirs: readonly string[]): Promise<string | undefined> {
  for (const dir of dirs) {
    if (!path.isAbsolute(dir)) continue;
    const file = path.join(dir, name);
    if (await executable(file)) return file;
  }
  return undefined;
}

/** What {@link resolveFilterLauncher} found: the launcher, or why there is none. */
export type FilterLauncherVerdict = { ok: true; launcher: FilterLauncher } | { ok: false; reason: string };

/**
 * The launcher for this gateway: its own Node, the filter script, and `setsid`, `sh` and `env` from the
 * gateway's `PATH` (then `/usr/bin`, `/bin`), by absolute path so the command's `PATH` cannot change them.
 */
export async function resolveFilterLauncher(
  env: NodeJS.ProcessEnv = process.env,
  nodePath: string = process.execPath,
  nodeFlags: ReadonlySet<string> = process.allowedNodeEnvironmentFlags,
): Promise<FilterLauncherVerdict> {
  if (!nodeFlags.has("--disable-sigusr1"))
    return { ok: false, reason: "this Node has no --disable-sigusr1 (Node 22.14 or later has)" };
  const dirs = [...(env.PATH ?? "").split(path.delimiter), "/usr/bin", "/bin"];
  const found: Record<string, string> = {};
  for (const name of ["setsid", "sh", "env"]) {
    const file = await findProgram(name, dirs);
    if (!file) return { ok: false, reason: `no ${name} program on this gateway's PATH` };
    found[name] = file;
  }
  return {
    ok: true,
    launcher: {
      nodePath,
      filterPath: teeFilterPath(),
      setsidPath: found.setsid as string,
      shPath: found.sh as string,
      envPath: found.env as string,
    },
  };
}
