import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Copies the built plugin (dist, manifest, package.json) into a temp folder
 * whose node_modules links to this repo's, so the host loads a snapshot: the
 * host refuses a plugin whose source changes while it loads ("Plugin source
 * changed while preparing its reload"), which a working tree being edited does.
 */
export async function stagePlugin(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "cl-plugin-"));
  await cp(path.join(REPO, "dist"), path.join(dir, "dist"), { recursive: true });
  await cp(path.join(REPO, "openclaw.plugin.json"), path.join(dir, "openclaw.plugin.json"));
  await cp(path.join(REPO, "package.json"), path.join(dir, "package.json"));
  await symlink(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
