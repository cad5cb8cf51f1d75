import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const REGISTER = fileURLToPath(new URL("../../scripts/register-ts.mjs", import.meta.url));

/** A worker process started by {@link startWorker}. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited, with its code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Collected stderr (for failure messages). */
  stderr(): string;
}

/**
 * Starts `script` (an .mjs file that may import the project's .ts sources) in
 * its own Node process, with `args` as one JSON argument. Runs on the same
 * Node as the tests (Node 24, which strips types natively).
 */
export function startWorker(script: string, args: unknown): WorkerProcess {
  const child = fork(script, [JSON.stringify(args)], {
    execArgv: ["--import", REGISTER, "--disable-warning=ExperimentalWarning"],
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString("utf8");
    if (err.length > 20_000) err = err.slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return { child, exited, stderr: () => err };
}

/** Polls until `file` exists (a worker's marker) or `timeoutMs` passes; true when it appeared. */
export async function waitForFile(file: string, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (existsSync(file)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return existsSync(file);
}

/** Kills a worker by its own pid (never by name) and waits for it to be gone. */
export async function killWorker(worker: WorkerProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill(signal);
  await worker.exited;
}
