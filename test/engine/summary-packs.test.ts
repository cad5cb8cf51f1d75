/**
 * Every turn the summary condenses stays reachable by handle, however long the session: a pack is sealed whenever the
 * condensed turns run past the newest pack (by at most SEAL_LAG_TURNS), and the record folds what a pack holds, so it
 * stays small. A 500-turn run on 2026.9.6 sealed one pack at turn 12 and none after: 480 condensed turns in no pack,
 * planted facts that `ledger_search` could not find, and a record of 493 entries re-read on every assemble.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SEAL_LAG_TURNS } from "../../src/summary/render-summary.js";
import { assistant, createTestEngine, user } from "../support/engine-harness.js";

describe("summary packs over a long session", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  afterEach(async () => t.cleanup());

  it("holds every condensed turn in some pack, and keeps the record bounded", async () => {
    t = await createTestEngine();
    const ids = { sessionId: "sid-packs", sessionKey: "agent:main:packs" };
    const turns = 150;
    const history: unknown[] = [];
    let last = "";
    for (let n = 1; n <= turns; n++) {
      history.push(user(`Turn ${n}: remember MARK-${n} for later, and check the build.`));
      history.push(assistant(`Turn ${n} done: the build passed; noted MARK-${n}.`));
      last = JSON.stringify((await t.engine.assemble({ ...ids, messages: [...history], tokenBudget: 3_000 })).messages);
    }
    await t.services.sessions.flush();

    const store = t.services.store("main");
    const packs: string[] = [];
    for await (const meta of store.list())
      if (meta.kind === "checkpoint" && meta.origin.sessionKey === ids.sessionKey)
        packs.push((await store.read(meta.handle)).toString("utf8"));
    expect(packs.length).toBeGreaterThan(1);
    // Each turn is in the prompt (the window, or the summary's lines) or in a pack; a few condensed ones may wait.
    const reachable = (n: number) => last.includes(`MARK-${n} `) || packs.some((p) => p.includes(`MARK-${n} `));
    const missing = Array.from({ length: turns }, (_, i) => i + 1).filter((n) => !reachable(n));
    expect(missing.length).toBeLessThanOrEqual(SEAL_LAG_TURNS);

    const dir = t.services.sessions.dir("main", ids.sessionKey);
    const sidecar = (await readdir(dir)).find((f) => /^summary-.*\.json$/.test(f));
    const record = JSON.parse(await readFile(path.join(dir, sidecar!), "utf8")) as { entries: unknown[] };
    expect(record.entries.length).toBeLessThan(60);
  });
});
