import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";

const dir = useTempDir("ledger-lock-");
const requireCache = createRequire(import.meta.url).cache;

describe("withFileLock across copies of its module", () => {
  it("a dozen fresh copies (a host's hot reloads) add proper-lockfile's signal handlers at most once", async () => {
    const before = process.listenerCount("SIGHUP");
    for (let i = 0; i < 12; i++) {
      // What a host's reload does to the plugin's dependencies: drops them from the require cache.
      for (const id of Object.keys(requireCache))
        if (/[\\/](proper-lockfile|signal-exit)[\\/]/.test(id)) delete requireCache[id];
      vi.resetModules();
      const { withFileLock } = await import("./lock.js");
      expect(await withFileLock(path.join(dir(), "state.json"), async () => i)).toBe(i);
    }
    expect(process.listenerCount("SIGHUP") - before).toBeLessThanOrEqual(1);
  });
});
