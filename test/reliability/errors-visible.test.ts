import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conversationEpoch } from "../../src/summary/summary-epoch.js";
import { sessionStatePath } from "../../src/state/session-file.js";
import { conversation, createTestEngine, user } from "../support/engine-harness.js";

describe("errors on state and summary paths are visible", () => {
  it("a corrupt state.json is kept for inspection, logged with its code and counted in the session state", async () => {
    const t = await createTestEngine();
    const s = { sessionId: "s1", sessionKey: "agent:main:corrupt" };
    const dir = t.services.sessions.dir("main", s.sessionKey);
    await fsp.mkdir(dir, { recursive: true });
    const file = sessionStatePath(dir);
    await fsp.writeFile(file, "{not json");
    await t.engine.commitTurn({ ...s, advancementKey: "k1", messages: [user("hello")] });
    await t.services.sessions.flush();
    const kept = (await fsp.readdir(dir)).filter((n) => n.startsWith("state.json.corrupt-"));
    expect(kept).toHaveLength(1);
    expect(await fsp.readFile(path.join(dir, kept[0]!), "utf8")).toBe("{not json");
    expect(t.logs.some((l) => l.startsWith("error") && l.includes("state_corrupt") && l.includes(kept[0]!))).toBe(true);
    const state = JSON.parse(await fsp.readFile(file, "utf8")) as {
      problems?: { count: number; last: { code: string; keptAs?: string } };
    };
    expect(state.problems?.count).toBeGreaterThanOrEqual(1);
    expect(state.problems?.last.code).toBe("state_corrupt");
    await t.cleanup();
  });

  it("a summary sidecar that cannot be parsed is logged and never overwritten", async () => {
    const t = await createTestEngine({ offload: { maxChars: 2_000 } });
    const s = { sessionId: "s2", sessionKey: "agent:main:bad-summary" };
    const messages = [...conversation(12, 6_000), user("what failed?")];
    const dir = t.services.sessions.dir("main", s.sessionKey);
    await fsp.mkdir(dir, { recursive: true });
    const file = path.join(dir, `summary-${conversationEpoch(messages)}.json`);
    await fsp.writeFile(file, "garbage, not a summary");
    const view = (await t.engine.assemble({ ...s, messages, tokenBudget: 6_000 })) as { messages: unknown[] };
    expect(view.messages.length).toBeGreaterThan(0);
    await t.engine.assemble({ ...s, messages, tokenBudget: 6_000 });
    await t.services.sessions.flush();
    expect(await fsp.readFile(file, "utf8")).toBe("garbage, not a summary");
    expect(
      t.logs.filter((l) => l.startsWith("error") && l.includes("summary sidecar problem state_corrupt")),
    ).toHaveLength(1);
    const state = JSON.parse(await fsp.readFile(sessionStatePath(dir), "utf8")) as { problems?: { count: number } };
    expect(state.problems?.count).toBe(1);
    await t.cleanup();
  });

  it("a failed state write is logged with its code", async () => {
    const t = await createTestEngine();
    const s = { sessionId: "s3", sessionKey: "agent:main:nowrite" };
    const dir = t.services.sessions.dir("main", s.sessionKey);
    await fsp.mkdir(path.dirname(dir), { recursive: true });
    await fsp.writeFile(dir, "a file where the session folder should be");
    await t.engine.assemble({ ...s, messages: [user("hi")], tokenBudget: 6_000 });
    await t.services.sessions.flush();
    expect(t.logs.some((l) => l.startsWith("error") && /session state problem \w+: state write failed/.test(l))).toBe(
      true,
    );
    await t.cleanup();
  });
});
