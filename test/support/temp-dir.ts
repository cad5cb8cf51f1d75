import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";

/**
 * A fresh temporary folder for each test of the calling file, removed after it.
 * Call at the top level of a test file; the returned function gives the current folder.
 */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error("useTempDir: the folder exists only while a test runs");
    return dir;
  };
}
