import { spawn, type ChildProcess } from "node:child_process";

/** Every child process group the harness started and has not seen exit, by PID. */
const live = new Map<number, ChildProcess>();

/** Options for {@link spawnGroup}. */
export interface SpawnGroupOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Spawns `command` as the leader of a new process group (so the group can be
 * stopped with everything it started) and tracks it until it exits.
 */
export function spawnGroup(command: string, args: string[], options: SpawnGroupOptions): ChildProcess {
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid !== undefined) {
    live.set(pid, child);
    child.once("exit", () => live.delete(pid));
  }
  return child;
}

/** True while the process `pid` exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Stops the process group led by `pid`: SIGTERM, then SIGKILL after `graceMs`.
 * Resolves once the leader has exited (or was already gone).
 * @param graceMs @default 5000
 */
export async function stopGroup(pid: number, graceMs = 5_000): Promise<void> {
  const child = live.get(pid);
  const exited = new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  signalGroup(pid, "SIGTERM");
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
  if ((await Promise.race([exited, timer])) === "timeout") {
    signalGroup(pid, "SIGKILL");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  }
  // Children of the leader that ignored SIGTERM go with the group.
  signalGroup(pid, "SIGKILL");
  live.delete(pid);
}

/** Stops every group the harness started that is still running (for afterAll / finally). */
export async function stopAllGroups(): Promise<void> {
  await Promise.all([...live.keys()].map((pid) => stopGroup(pid)));
}

/** PIDs of the groups still tracked as running. */
export function liveGroupPids(): number[] {
  return [...live.keys()];
}
