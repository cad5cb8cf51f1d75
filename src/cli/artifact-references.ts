import { promises as fsp } from "node:fs";
import path from "node:path";

const HANDLE_IN_TEXT = /ledger:v1:sha256:[0-9a-f]{64}/g;
/** Files larger than this are not scanned for handles. */
const MAX_SCAN_BYTES = 64 * 1024 * 1024;

/**
 * Conservative reference set for `artifact gc`: every handle written anywhere
 * in one agent's ledger state (session sidecars, summaries, checkpoints,
 * capture indexes), except inside the artifact store itself.
 */
export async function scanReferencedHandles(agentDir: string): Promise<Set<string>> {
  const found = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!(dir === agentDir && e.name === "artifacts")) await walk(full);
      } else if (e.isFile()) {
        const st = await fsp.stat(full).catch(() => undefined);
        if (!st || st.size > MAX_SCAN_BYTES) continue;
        const text = await fsp.readFile(full, "utf8").catch(() => "");
        for (const m of text.matchAll(HANDLE_IN_TEXT)) found.add(m[0]);
      }
    }
  };
  await walk(agentDir);
  return found;
}
