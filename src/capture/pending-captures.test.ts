import { describe, expect, it } from "vitest";
import { createPendingCaptures } from "./pending-captures.js";

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe("pending captures", () => {
  it("waits for a session's captures by key or id, and not for another session's", async () => {
    const pending = createPendingCaptures();
    const mine = deferred();
    const theirs = deferred();
    pending.track({ sessionKey: "agent:main:a", sessionId: "sa" }, mine.promise);
    pending.track({ sessionKey: "agent:main:b" }, theirs.promise);
    const waiting = pending.settle({ sessionId: "sa" }, 10_000);
    mine.resolve();
    expect(await waiting).toBe(0);
    // The other session's capture never settles; a wait for this one does not see it.
    expect(await pending.settle({ sessionKey: "agent:main:a" }, 10_000)).toBe(0);
  });

  it("gives up after the bound and says how many were still running; a failed capture counts as settled", async () => {
    const pending = createPendingCaptures();
    pending.track({ sessionKey: "k" }, new Promise(() => undefined));
    pending.track({ sessionKey: "k" }, Promise.reject(new Error("disk full")));
    expect(await pending.settle({ sessionKey: "k" }, 20)).toBe(1);
  });
});
