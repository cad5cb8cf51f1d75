/**
 * What an assemble waits for. With ten sessions in one gateway every await of an assemble also waits for the other
 * sessions' turn on the event loop (tens of milliseconds each on 2 cores), so an assemble with nothing new to store
 * must not await at all, and each one reports what it awaited, per step, for the bench and the event log.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistant, conversation, createTestEngine, user } from "../support/engine-harness.js";

interface Waits {
  ledger?: { waits?: Record<string, number> };
}

describe("an assemble's waits", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  beforeEach(async () => {
    t = await createTestEngine();
  });
  afterEach(async () => t.cleanup());

  const ids = { sessionId: "sid-waits", sessionKey: "agent:main:waits" };

  it("reports what it awaited, per step, in milliseconds: only the steps that ran", async () => {
    const out = (await t.engine.assemble({ ...ids, messages: conversation(4), tokenBudget: 32_000 })) as Waits;
    const waits = out.ledger?.waits ?? {};
    expect(Object.keys(waits)).toEqual(expect.arrayContaining(["captures", "state", "store"]));
    for (const ms of Object.values(waits)) expect(Number.isFinite(ms)).toBe(true);
    // The newest user message fits: nothing was reduced, so no reduction was awaited.
    expect(waits).not.toHaveProperty("reduce");

    const oversized = [...conversation(4), assistant("Noted."), user(`Read this: ${"all work ".repeat(40_000)}`)];
    const reduced = (await t.engine.assemble({ ...ids, messages: oversized, tokenBudget: 32_000 })) as Waits;
    expect(Object.keys(reduced.ledger?.waits ?? {})).toContain("reduce");
  });

  it("does not give the event loop away once the session's state is cached and its outputs stored", async () => {
    const history = conversation(6);
    await t.engine.assemble({ ...ids, messages: history, tokenBudget: 32_000 });
    await t.services.sessions.flush();
    await t.services.views.flush();

    // The next turn: the same stored outputs, a new user message.
    const next = [...history, assistant("Noted."), user("Turn 6: and the tests?")];
    let loopTurned = false;
    setImmediate(() => {
      loopTurned = true;
    });
    const out = (await t.engine.assemble({ ...ids, messages: next, tokenBudget: 32_000 })) as Waits & {
      messages: unknown[];
    };
    expect(out.messages.length).toBeGreaterThan(0);
    expect(loopTurned).toBe(false);
  });
});
