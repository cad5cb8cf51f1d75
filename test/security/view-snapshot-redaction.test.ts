/**
 * What `view` shows is written to `views.json` on every assemble: a secret that the
 * preview's cut would split must not reach the file half in clear.
 */
import { promises as fsp } from "node:fs";
import { describe, expect, it } from "vitest";
import { viewRecordPath } from "../../src/state/view-record.js";
import { assistant, createTestEngine, user } from "../support/engine-harness.js";

const SECRET = "sk-proj-Zx8fQ2mN7vL4kR9tW3yB6cD1eH5jG0aS";

describe("views.json", () => {
  it("redacts a secret that straddles the preview's cut", async () => {
    const t = await createTestEngine();
    const sessionKey = "agent:main:view-secret";
    // The key starts inside the first 320 chars and ends after them; the blank run before it collapses in the
    // preview, so a cut at 320 chars would have brought its first 20 chars, too few for any rule, into view.
    const question = `is this valid?${" ".repeat(290)}${SECRET} thanks`;
    await t.engine.assemble({
      sessionId: "s1",
      sessionKey,
      messages: [user("hello"), assistant("hi"), user(question)],
      tokenBudget: 16_000,
    });
    await t.engine.dispose();
    const file = await fsp.readFile(viewRecordPath(t.services.root, "main", sessionKey), "utf8");
    expect(file).toContain('"role":"user"');
    for (let cut = 12; cut <= SECRET.length; cut += 4) expect(file).not.toContain(SECRET.slice(0, cut));
  });
});
