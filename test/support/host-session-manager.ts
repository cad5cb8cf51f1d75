import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureHost, RESET_LOOP_HOST } from "../host/host-install.js";

/** The 2026.4.24 host's session loader (pi-coding-agent's SessionManager), as far as the tests use it. */
export interface HostSessionManager {
  getEntries(): { type: string; id: string; parentId: string | null }[];
  buildSessionContext(): { messages: { role: string; summary?: string; content?: unknown }[] };
}

/**
 * Loads the 2026.4.24 host's own `SessionManager` (installed on demand into .cache/ like every host line, never
 * skipped when absent): `open(file, dir, cwd)` reads a JSONL transcript as the host does.
 */
export async function loadHostSessionManager(): Promise<{
  open(file: string, dir?: string, cwd?: string): HostSessionManager;
}> {
  const host = await ensureHost(RESET_LOOP_HOST);
  const loader = path.resolve(
    host.packageDir,
    "..",
    "@mariozechner",
    "pi-coding-agent",
    "dist",
    "core",
    "session-manager.js",
  );
  return ((await import(pathToFileURL(loader).href)) as { SessionManager: never }).SessionManager;
}
