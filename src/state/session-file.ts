/**
 * A session state on disk: one JSON file per session folder, read and written whole,
 * updated under the session lock. The state's shape and its pure updates live in
 * `session-state.ts`.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { isLedgerError, LedgerError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { withFileLock } from "../fs/lock.js";
import {
  countProblem,
  createSessionState,
  SESSION_STATE_SCHEMA,
  type SessionState,
  type StateProblemReporter,
} from "./session-state.js";

/** Path of the state file inside a session folder. */
export function sessionStatePath(sessionDir: string): string {
  return path.join(sessionDir, "state.json");
}

/** Reads a session state; throws `state_corrupt` when the file is unreadable JSON or of another schema. */
export async function readSessionState(file: string): Promise<SessionState> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    throw new LedgerError("io_failed", `Expected a session state at \`${file}\`, got ${(err as Error).message}`, {
      cause: err,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new LedgerError("state_corrupt", `Expected JSON in \`${file}\`, got unparsable text`, { cause: err });
  }
  if (!parsed || typeof parsed !== "object" || (parsed as SessionState).schema !== SESSION_STATE_SCHEMA) {
    throw new LedgerError("state_corrupt", `Expected schema \`${SESSION_STATE_SCHEMA}\` in \`${file}\``);
  }
  return { ...createSessionState("", ""), ...(parsed as SessionState) };
}

/** Reads a session state, or undefined when there is none yet. Corrupt files still throw. */
export async function tryReadSessionState(file: string): Promise<SessionState | undefined> {
  try {
    await fsp.access(file);
  } catch {
    return undefined;
  }
  return readSessionState(file);
}

/** Writes a session state atomically. */
export async function writeSessionState(file: string, state: SessionState): Promise<void> {
  state.updatedAt = new Date().toISOString();
  await writeFileAtomic(file, `${JSON.stringify(state)}\n`);
}

/**
 * Read-modify-write of a session state under the session lock (other processes
 * and this one). `fn` returns the value to hand back; mutations to `state` are
 * persisted unless `fn` returns `{ skipWrite: true }` in the tuple.
 */
export async function updateSessionState<T>(
  file: string,
  init: () => SessionState,
  fn: (state: SessionState) => Promise<{ value: T; write: boolean }> | { value: T; write: boolean },
  report?: StateProblemReporter,
): Promise<T> {
  return withFileLock(`${file}.lock`, async () => {
    let state: SessionState;
    try {
      state = (await tryReadSessionState(file)) ?? init();
    } catch (err) {
      // Unreadable (permissions, I/O): the file may be fine; never overwrite what could not be read.
      if (!isLedgerError(err, "state_corrupt")) throw err;
      // Corrupt: the session must go on, so start fresh, but keep the bad file for inspection, say so and count it.
      const keptAs = `${file}.corrupt-${Date.now()}`;
      await fsp.copyFile(file, keptAs);
      state = init();
      countProblem(state, { code: err.code, message: err.message, keptAs });
      report?.({ code: err.code, file, message: err.message, keptAs });
    }
    const { value, write } = await fn(state);
    if (write) await writeSessionState(file, state);
    return value;
  });
}
