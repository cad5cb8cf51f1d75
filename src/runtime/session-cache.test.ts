import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import type { DebtReading } from "../state/session-state.js";
import { sessionStatePath, tryReadSessionState } from "../state/session-file.js";
import { createSessionCache } from "./session-cache.js";

const AGENT = "main";
const KEY = "agent:main:cache";
const ticks = (n: number) =>
  Array.from({ length: n }).reduce<Promise<void>>(
    (p) => p.then(() => new Promise((resolve) => setImmediate(resolve))),
    Promise.resolve(),
  );

const root = useTempDir("session-cache-");

describe("session cache", () => {
  it("a locked update never drops a write-behind update made before or during it, in memory or on disk", async () => {
    const cache = createSessionCache(root());
    for (let i = 0; i < 40; i++) {
      // Vary where the write-behind's own write stands when the update starts (queued, locked, stat-ing, done).
      cache.updateBehind(AGENT, KEY, (s) => {
        s.turns = i;
      });
      await ticks(i % 8);
      const committed = cache.update(AGENT, KEY, (s) => {
        s.committedKeys.push(`k${i}`);
        return { value: undefined, write: true };
      });
      cache.updateBehind(AGENT, KEY, (s) => {
        s.compactions = i;
      });
      await committed;
      const seen = await cache.read(AGENT, KEY);
      expect({ turns: seen.turns, compactions: seen.compactions, last: seen.committedKeys.at(-1) }).toEqual({
        turns: i,
        compactions: i,
        last: `k${i}`,
      });
    }
    await cache.flush();
    const disk = await tryReadSessionState(sessionStatePath(cache.dir(AGENT, KEY)));
    expect({ turns: disk?.turns, compactions: disk?.compactions, keys: disk?.committedKeys.length }).toEqual({
      turns: 39,
      compactions: 39,
      keys: 40,
    });
  });

  it("a write-behind update is written once even when a locked update carried it to disk first", async () => {
    const cache = createSessionCache(root());
    await cache.update(AGENT, KEY, () => ({ value: undefined, write: true }));
    const committed = cache.update(AGENT, KEY, () => ({ value: undefined, write: true }));
    const reading: DebtReading = {
      at: "t",
      rawHistoryTokens: 1,
      assembledTokens: 1,
      promptBudget: 1,
      debtTokens: 0,
      reducibleChars: 0,
    };
    cache.updateBehind(AGENT, KEY, (s) => {
      s.debtHistory.push(reading);
    });
    await committed;
    await cache.flush();
    const disk = await tryReadSessionState(sessionStatePath(cache.dir(AGENT, KEY)));
    expect(disk?.debtHistory).toHaveLength(1);
    expect((await cache.read(AGENT, KEY)).debtHistory).toHaveLength(1);
  });
});
