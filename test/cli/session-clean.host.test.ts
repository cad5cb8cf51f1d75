import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runSessionCommand } from "../../src/cli/sessions/session.js";
import { parseStubHandle } from "../../src/results/stub.js";
import { loadHostSessionManager } from "../support/host-session-manager.js";
import { bloatedSession, makeTempState, runWith, writeHostSession } from "./cli-fixtures.js";

// In the host project: it loads the 2026.4.24 host's own session loader (pi-coding-agent).
describe("a cleaned session loads in the 2026.4.24 host's session manager", () => {
  it("same entries, same conversation, tool results as stubs", async () => {
    const SessionManager = await loadHostSessionManager();
    const { env, state, dir } = await makeTempState("hostload");
    const session = bloatedSession();
    const file = await writeHostSession(state, "main", session);
    const before = SessionManager.open(file, path.dirname(file), dir);
    const beforeMessages = before.buildSessionContext().messages;
    expect((await runWith(runSessionCommand, ["clean", "--all"], env)).code).toBe(0);

    const after = SessionManager.open(file, path.dirname(file), dir);
    expect(after.getEntries().map((e) => [e.type, e.id, e.parentId])).toEqual(
      before.getEntries().map((e) => [e.type, e.id, e.parentId]),
    );
    const messages = after.buildSessionContext().messages;
    expect(messages).toHaveLength(beforeMessages.length);
    expect(messages).toHaveLength(24);
    expect(messages.map((m) => m.role)).toEqual(beforeMessages.map((m) => m.role));
    const results = messages.filter((m) => m.role === "toolResult") as { content: { text: string }[] }[];
    expect(results.map((m) => parseStubHandle(m.content[0]!.text) !== undefined)).toEqual(Array(6).fill(true));
    expect(messages.filter((m) => m.role !== "toolResult")).toEqual(
      beforeMessages.filter((m) => m.role !== "toolResult"),
    );
    await fsp.rm(dir, { recursive: true, force: true });
  });
});
