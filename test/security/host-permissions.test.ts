/**
 * Permissions are changed only on what context-ledger creates: an existing folder (the host's
 * state dir, an operator's) keeps its mode, and a host file rewritten in place (a transcript that
 * `session clean` or the 2026.4.x compaction entry rewrites) keeps the mode the host gave it.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureDir, writeFileAtomic } from "../../src/fs/atomic-write.js";
import { useTempDir } from "../support/temp-dir.js";

const tmp = useTempDir("ledger-perms-");
const modeOf = async (p: string) => (await fsp.stat(p)).mode & 0o777;

describe("permissions", () => {
  it("ensureDir leaves an existing folder's mode alone and makes new folders 0700", async () => {
    const host = path.join(tmp(), "host-state");
    await fsp.mkdir(host, { mode: 0o755 });
    await fsp.chmod(host, 0o755);
    await ensureDir(host);
    expect(await modeOf(host)).toBe(0o755);
    const made = path.join(host, "context-ledger", "agents", "main");
    await ensureDir(made);
    expect(await modeOf(host)).toBe(0o755);
    for (const dir of [path.join(host, "context-ledger"), path.join(host, "context-ledger", "agents"), made])
      expect(await modeOf(dir)).toBe(0o700);
  });

  it("a rewritten host file keeps its mode; a new file is 0600", async () => {
    const transcript = path.join(tmp(), "session.jsonl");
    await fsp.writeFile(transcript, '{"type":"session"}\n');
    await fsp.chmod(transcript, 0o644);
    await writeFileAtomic(transcript, '{"type":"session","v":2}\n');
    expect(await modeOf(transcript)).toBe(0o644);
    expect(await fsp.readFile(transcript, "utf8")).toContain('"v":2');
    const fresh = path.join(tmp(), "new", "state.json");
    await writeFileAtomic(fresh, "{}");
    expect(await modeOf(fresh)).toBe(0o600);
  });
});
