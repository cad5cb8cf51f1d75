import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { isLedgerError } from "../../src/errors.js";
import { assistant, call, createTestEngine, result, user } from "../support/engine-harness.js";

const MiB = 1024 * 1024;

describe("limits: a full artifact store", () => {
  it("the store runs gc first, then refuses a stash with store_full naming the cap", async () => {
    const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-limits-"));
    let clock = Date.UTC(2026, 0, 1);
    const referenced = new Set<string>();
    const store = createArtifactStore({
      root: path.join(tmp, "artifacts"),
      maxStoreBytes: MiB,
      now: () => clock,
      onStoreFull: () => ({ referenced, maxAgeMs: 60_000 }),
    });
    const old = await store.stash(randomBytes(600 * 1024));
    clock += 3_600_000;
    const kept = await store.stash(randomBytes(300 * 1024));
    referenced.add(kept.handle);
    // 600 KiB more does not fit: gc removes the old unreferenced artifact, then the stash succeeds.
    const fresh = await store.stash(randomBytes(600 * 1024));
    referenced.add(fresh.handle);
    expect(await store.has(old.handle)).toBe(false);
    expect(await store.has(kept.handle)).toBe(true);
    expect(await store.has(fresh.handle)).toBe(true);
    // Everything left is referenced: the next one is refused, and nothing referenced was removed.
    const refused = await store.stash(randomBytes(600 * 1024)).catch((err: unknown) => err);
    expect(isLedgerError(refused, "store_full")).toBe(true);
    expect((refused as Error).message).toContain(`cap ${MiB}`);
    expect(await store.has(kept.handle)).toBe(true);
    expect(await store.has(fresh.handle)).toBe(true);
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it("when the engine's stash is refused, the assembled view shows no handle that cannot be fetched and the log says why", async () => {
    const t = await createTestEngine({
      limits: { maxStoreBytes: MiB },
      offload: { maxChars: 2_000, structuredMaxChars: 1_000 },
    });
    // Fill the store with incompressible bytes so the next offload does not fit.
    await t.services.store("main").stash(randomBytes(MiB - 4 * 1024));
    const output = randomBytes(30 * 1024).toString("base64");
    const messages = [
      user("dump the blob"),
      call("c1", "exec"),
      result("c1", "exec", output),
      assistant("done"),
      user("and now?"),
    ];
    const view = await t.engine.assemble({
      sessionId: "s",
      sessionKey: "agent:main:full",
      messages,
      tokenBudget: 200_000,
    });
    const handles = JSON.stringify(view.messages).match(/ledger:v1:sha256:[0-9a-f]{64}/g) ?? [];
    for (const h of handles)
      expect(await t.services.store("main").has(h), `unfetchable handle ${h} in the prompt`).toBe(true);
    // The tool output is still in the prompt in some form: the original or a fetchable stub.
    const text = JSON.stringify(view.messages);
    expect(handles.length > 0 || text.includes(output)).toBe(true);
    expect(view.estimatedTokens).toBeLessThanOrEqual(200_000);
    expect(t.logs.some((l) => l.includes("store_full"))).toBe(true);
    expect(t.logs.filter((l) => l.includes("store_full")).every((l) => l.includes("limits.maxStoreBytes"))).toBe(true);
    await t.cleanup();
  });
});
