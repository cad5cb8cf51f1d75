import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, onTestFinished } from "vitest";

/**
 * A fresh temporary folder for each test of the calling file, removed after it.
 * Call at the top level of a test file; the returned function gives the current folder.
 */
export function useTempDir(prefix: string): () => string {
  return tempDirBetween(prefix, beforeEach, afterEach, "useTempDir: the folder exists only while a test runs");
}

/**
 * One temporary folder shared by the tests of the calling `describe` (or file), made before the first
 * and removed after the last. Call at the top level of the `describe`, before the hooks that use it.
 */
export function useSharedTempDir(prefix: string): () => string {
  return tempDirBetween(prefix, beforeAll, afterAll, "useSharedTempDir: the folder exists only while its tests run");
}

/** A folder made by the `make` hook and removed by the `remove` hook; the getter throws `outside` between them. */
function tempDirBetween(
  prefix: string,
  make: (fn: () => Promise<void>) => void,
  remove: (fn: () => Promise<void>) => void,
  outside: string,
): () => string {
  let dir: string | undefined;
  make(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  remove(async () => {
    if (dir) await removeDir(dir);
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error(outside);
    return dir;
  };
}

// Removals asked for outside a test (a `beforeAll`): run when the test file ends. Registered when a test
// file imports this module (vitest evaluates it again for each file).
const atFileEnd: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of atFileEnd.splice(0)) await remove();
});

/**
 * A temporary folder made wherever a helper is called (a test, a `beforeEach` or a `beforeAll`), removed by
 * `remove` when that test ends, or when the test file ends for one made outside a test; the helper may
 * remove it sooner. Folders of tests that fail or forget their cleanup are removed too.
 */
export async function makeTempDir(
  prefix: string,
  remove: (dir: string) => Promise<void> = removeDir,
  root: string = os.tmpdir(),
): Promise<string> {
  const dir = await mkdtemp(path.join(root, prefix));
  let removed: Promise<void> | undefined;
  const once = () => (removed ??= remove(dir));
  try {
    onTestFinished(once);
  } catch {
    // Not inside a test: a beforeAll, or a hook that may not add test hooks.
    atFileEnd.push(once);
  }
  return dir;
}

function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}
