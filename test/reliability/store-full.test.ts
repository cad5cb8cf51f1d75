import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import { describe, expect, it } from "vitest";
import { sessionStatePath } from "../../src/state/session-file.js";
import { call, createTestEngine, result, user } from "../support/engine-harness.js";

const MiB = 1024 * 1024;

describe("store full", () => {
  it("the engine's store gcs unreferenced artifacts (older than 10 minutes) before it refuses", async () => {
    const t = await createTestEngine({ limits: { maxStoreBytes: MiB } });
    const store = t.services.store("main");
    const old = await store.stash(randomBytes(MiB - 64 * 1024), { kind: "tool-output" });
    // Age it past the keep-newer window, as a stale output would be.
    const metaFile = (await fsp.readdir(`${store.root}/meta`, { recursive: true }))
      .map(String)
      .find((f) => f.endsWith(".json") && f.includes(old.handle.slice(-64)));
    const metaPath = `${store.root}/meta/${metaFile}`;
    const meta = JSON.parse(await fsp.readFile(metaPath, "utf8")) as { createdAt: string };
    meta.createdAt = new Date(Date.now() - 3_600_000).toISOString();
    await fsp.writeFile(metaPath, JSON.stringify(meta));
    const fresh = await store.stash(randomBytes(200 * 1024), { kind: "tool-output" });
    expect(fresh.created).toBe(true);
    expect(await store.has(old.handle)).toBe(false);
    await t.cleanup();
  });

  it("commitTurn says what was not stored (answer, log, session state) instead of a bare `committed`", async () => {
    const t = await createTestEngine({ limits: { maxStoreBytes: MiB }, offload: { maxChars: 2_000 } });
    const s = { sessionId: "s1", sessionKey: "agent:main:full-commit" };
    // Everything in the store is young: nothing may be collected.
    await t.services.store("main").stash(randomBytes(MiB - 8 * 1024), { kind: "tool-output" });
    const output = randomBytes(60 * 1024).toString("base64");
    const r = (await t.engine.commitTurn({
      ...s,
      advancementKey: "k1",
      messages: [user("dump"), call("call_aB_1-x", "exec"), result("call_aB_1-x", "exec", output)],
    })) as {
      status: string;
      notStored?: { code: string; reason: string };
    };
    expect(r.status).toBe("committed");
    expect(r.notStored?.code).toBe("store_full");
    expect(t.logs.some((l) => l.includes("store_full") && l.includes("not stored"))).toBe(true);
    await t.services.sessions.flush();
    const state = JSON.parse(
      await fsp.readFile(sessionStatePath(t.services.sessions.dir("main", s.sessionKey)), "utf8"),
    ) as {
      unstored?: { count: number };
    };
    expect(state.unstored?.count).toBe(1);
    await t.cleanup();
  });
});
