import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fingerprintMessage } from "../host/messages.js";
import { hostLockPath } from "../host/session-lock.js";
import { appendJsonlCompaction } from "./jsonl-compaction.js";

type Line = { type: string; id: string; parentId: string | null; message?: Record<string, unknown> };

/** A 2026.4.x JSONL transcript: a header and `turns` user/assistant pairs. */
function transcript(turns: number): Line[] {
  const lines: Line[] = [{ type: "session", id: "s-1", parentId: null }];
  let parent: string | null = null;
  for (let t = 0; t < turns; t++) {
    for (const message of [
      { role: "user", content: [{ type: "text", text: `turn ${t}` }] },
      { role: "assistant", content: [{ type: "text", text: `answer ${t}` }] },
    ]) {
      const id = `e${lines.length}`;
      lines.push({ type: "message", id, parentId: parent, message });
      parent = id;
    }
  }
  return lines;
}

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), "jsonl-compaction-"));
  file = path.join(dir, "s-1.jsonl");
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

const write = (lines: Line[]) => fsp.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
const read = async () =>
  (await fsp.readFile(file, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("recording a compaction in the host's JSONL transcript", () => {
  it("appends one compaction entry after the leaf, keeping from the given message; every earlier line stays as it was", async () => {
    const lines = transcript(5);
    await write(lines);
    const before = await fsp.readFile(file, "utf8");
    const kept = lines.find((l) => l.message && (l.message.content as { text: string }[])[0]!.text === "turn 3")!;
    const written = await appendJsonlCompaction(file, {
      firstKept: fingerprintMessage(kept.message),
      summary: "[context-ledger summary] turns 0-2",
      tokensBefore: 900,
      details: { engine: "context-ledger" },
    });
    expect(written?.firstKeptEntryId).toBe(kept.id);
    const after = await fsp.readFile(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    const last = (await read()).at(-1)!;
    expect(last).toMatchObject({
      type: "compaction",
      id: written!.entryId,
      parentId: lines.at(-1)!.id,
      firstKeptEntryId: kept.id,
      summary: "[context-ledger summary] turns 0-2",
      tokensBefore: 900,
    });
    expect(typeof last.timestamp).toBe("string");
  });

  it("does not go backwards: a compaction already keeping from there or later is left alone", async () => {
    const lines = transcript(5);
    await write(lines);
    const at = (text: string) =>
      fingerprintMessage(
        lines.find((l) => l.message && (l.message.content as { text: string }[])[0]!.text === text)!.message,
      );
    expect(
      await appendJsonlCompaction(file, { firstKept: at("turn 3"), summary: "s", tokensBefore: 1, details: {} }),
    ).toBeDefined();
    expect(
      await appendJsonlCompaction(file, { firstKept: at("turn 2"), summary: "s", tokensBefore: 1, details: {} }),
    ).toBeUndefined();
    expect(
      await appendJsonlCompaction(file, { firstKept: at("turn 4"), summary: "s", tokensBefore: 1, details: {} }),
    ).toBeDefined();
    expect((await read()).filter((l) => l.type === "compaction")).toHaveLength(2);
  });

  it("writes nothing when the message is not on the active branch or is the first entry", async () => {
    const lines = transcript(3);
    await write(lines);
    const before = await fsp.readFile(file, "utf8");
    expect(
      await appendJsonlCompaction(file, {
        firstKept: fingerprintMessage({ role: "user", content: "not there" }),
        summary: "s",
        tokensBefore: 1,
        details: {},
      }),
    ).toBeUndefined();
    expect(
      await appendJsonlCompaction(file, {
        firstKept: fingerprintMessage(lines[0]!.message),
        summary: "s",
        tokensBefore: 1,
        details: {},
      }),
    ).toBeUndefined();
    expect(await fsp.readFile(file, "utf8")).toBe(before);
  });

  it("waits for nobody: another live process holding the host's lock means no write; a lock of this process is the host calling", async () => {
    const lines = transcript(4);
    await write(lines);
    const firstKept = fingerprintMessage(lines[5]!.message);
    // pid 1 is alive on every Linux machine and is not this process.
    await fsp.writeFile(hostLockPath(file), JSON.stringify({ pid: 1, createdAt: new Date().toISOString() }));
    expect(
      await appendJsonlCompaction(file, { firstKept, summary: "s", tokensBefore: 1, details: {} }),
    ).toBeUndefined();
    await fsp.writeFile(hostLockPath(file), JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString() }));
    expect(await appendJsonlCompaction(file, { firstKept, summary: "s", tokensBefore: 1, details: {} })).toBeDefined();
    await fsp.rm(hostLockPath(file));
    // Unlocked: it takes the lock for the write and gives it back.
    expect(
      await appendJsonlCompaction(file, {
        firstKept: fingerprintMessage(lines[7]!.message),
        summary: "s",
        tokensBefore: 1,
        details: {},
      }),
    ).toBeDefined();
    await expect(fsp.access(hostLockPath(file))).rejects.toThrow();
  });

  it("a last line cut short by a crashed writer gets its own line end, so the entry still parses", async () => {
    const lines = transcript(3);
    await fsp.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"type":"message","id":"torn`);
    expect(
      await appendJsonlCompaction(file, {
        firstKept: fingerprintMessage(lines[3]!.message),
        summary: "s",
        tokensBefore: 1,
        details: {},
      }),
    ).toBeDefined();
    const text = await fsp.readFile(file, "utf8");
    expect(JSON.parse(text.trim().split("\n").at(-1)!).type).toBe("compaction");
  });
});
