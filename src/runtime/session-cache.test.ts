import { mkdirSync, promises as fsp, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import { createSessionState, type DebtReading } from "../state/session-state.js";
import { sessionStatePath, tryReadSessionState } from "../state/session-file.js";
import { createSessionCache, type SessionCache } from "./session-cache.js";

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

describe("session cache bound", () => {
  const keyOf = (i: number) => `agent:main:cron-${i}`;
  /** Writes every `step`th of `count` sessions' states straight to disk, each with 20 committed keys. */
  const seed = (cache: SessionCache, count: number, step = 1) => {
    for (let i = 0; i < count; i += step) {
      const dir = cache.dir(AGENT, keyOf(i));
      mkdirSync(dir, { recursive: true });
      const state = createSessionState(AGENT, keyOf(i));
      state.committedKeys = Array.from({ length: 20 }, (_, k) => `${i}:${k}`);
      state.turns = i;
      writeFileSync(sessionStatePath(dir), JSON.stringify(state));
    }
  };

  it("10,000 sessions touched: it holds at most its bound, and an evicted session comes back whole", async () => {
    const cache = createSessionCache(root(), undefined, { maxSessions: 256 });
    // Every 100th session has a state on disk; the others read as fresh states, and each takes an entry all the same.
    seed(cache, 10_000, 100);
    // A session with a locked update and a write-behind update still queued when the churn evicts it.
    await cache.update(AGENT, keyOf(0), (s) => {
      s.committedKeys.push("live");
      return { value: undefined, write: true };
    });
    cache.updateBehind(AGENT, keyOf(0), (s) => {
      s.compactions = 5;
    });
    let most = 0;
    for (let i = 1; i < 10_000; i++) {
      const s = await cache.read(AGENT, keyOf(i));
      const expected = i % 100 === 0 ? { turns: i, keys: 20 } : { turns: 0, keys: 0 };
      if (s.turns !== expected.turns || s.committedKeys.length !== expected.keys)
        throw new Error(`session ${i} read as ${s.turns} turns, ${s.committedKeys.length} keys`);
      most = Math.max(most, cache.cachedSessions());
    }
    await cache.flush();
    // The bound, plus at most the one session whose write was under way when it was evicted.
    expect(most).toBeLessThanOrEqual(257);
    expect(cache.cachedSessions()).toBeLessThanOrEqual(256);
    const back = await cache.read(AGENT, keyOf(0));
    expect({ keys: back.committedKeys.length, last: back.committedKeys.at(-1), compactions: back.compactions }).toEqual(
      {
        keys: 21,
        last: "live",
        compactions: 5,
      },
    );
    // A write-behind update to an evicted session, read at once: the disk's state with the update on top.
    cache.updateBehind(AGENT, keyOf(4200), (s) => {
      s.compactions = 9;
    });
    const seen = await cache.read(AGENT, keyOf(4200));
    expect({ turns: seen.turns, keys: seen.committedKeys.length, compactions: seen.compactions }).toEqual({
      turns: 4200,
      keys: 20,
      compactions: 9,
    });
  }, 60_000);

  it("keeps a write-behind update whose write failed, evicted or not, until a later write carries it", async () => {
    const problems: string[] = [];
    const cache = createSessionCache(root(), (p) => problems.push(p.code), { maxSessions: 16 });
    seed(cache, 100);
    const file = sessionStatePath(cache.dir(AGENT, keyOf(7)));
    await fsp.rm(file);
    // A folder where the state file should be: reading and writing it fail.
    await fsp.mkdir(file);
    cache.updateBehind(AGENT, keyOf(7), (s) => {
      s.compactions = 3;
    });
    await cache.flush();
    expect(problems.length).toBeGreaterThan(0);
    for (let i = 8; i < 100; i++) await cache.read(AGENT, keyOf(i));
    await fsp.rm(file, { recursive: true });
    cache.updateBehind(AGENT, keyOf(7), (s) => {
      s.sessionId = "carried";
    });
    await cache.flush();
    const disk = await tryReadSessionState(file);
    expect({ compactions: disk?.compactions, problems: disk?.problems?.count }).toEqual({
      compactions: 3,
      problems: 1,
    });
    expect((await cache.read(AGENT, keyOf(7))).compactions).toBe(3);
  });
});
