import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import { findWriters } from "./file-writers.js";
import { replaceKeepingAppends } from "./replace-keeping-appends.js";

const tmp = useTempDir("replace-appends-");

const setup = async () => {
  const file = path.join(tmp(), "t.jsonl");
  await fsp.writeFile(file, "a\nb\nc\n");
  const link = `${file}.link`;
  await fsp.link(file, link);
  return { file, link };
};

/**
 * Replaces the file while a writer that opened it in the instant before the rename does `late` with its handle:
 * the look before the rename misses that writer, every later look is real. Gives the outcome, the file after it
 * and how many looks were taken.
 */
async function replaceWithLateWriter(late: (writer: fsp.FileHandle, file: string) => Promise<void>) {
  const { file, link } = await setup();
  const writer = await fsp.open(file, "a");
  let looks = 0;
  const writers = (inode: { dev: number; ino: number }, dir: string) => (looks++ === 0 ? [] : findWriters(inode, dir));
  const lateDone = late(writer, file);
  const outcome = await replaceKeepingAppends(file, link, Buffer.from("A\n"), { readBytes: 6, findWriters: writers });
  await lateDone;
  return { outcome, text: await fsp.readFile(file, "utf8"), looks };
}

/** Resolves once the replaced file starts with the new content. */
async function untilReplaced(file: string): Promise<void> {
  while (!(await fsp.readFile(file, "utf8")).startsWith("A\n")) await new Promise((r) => setTimeout(r, 5));
}

describe("replacing a file while keeping appends", () => {
  it("leaves the file alone while a process holds it open for writing, naming that process", async () => {
    const { file, link } = await setup();
    const writer = await fsp.open(file, "a");
    try {
      const outcome = await replaceKeepingAppends(file, link, Buffer.from("A\n"), { readBytes: 6 });
      expect(outcome).toEqual({ replaced: false, reason: "held", writer: process.pid });
      await writer.write("d\n");
    } finally {
      await writer.close();
    }
    expect(await fsp.readFile(file, "utf8")).toBe("a\nb\nc\nd\n");
  });

  it("waits for a writer that opened the file in the instant before the rename, and carries its late line", async () => {
    const { outcome, text, looks } = await replaceWithLateWriter(async (writer) => {
      await new Promise((r) => setTimeout(r, 300));
      await writer.write("d\n");
      await writer.close();
    });
    expect(outcome).toEqual({ replaced: true, carried: 2 });
    expect(text).toBe("A\nd\n");
    expect(looks).toBeGreaterThan(1);
  });
});

describe("a writer that ignores the file's lock", () => {
  it("says how many late bytes were carried after lines another process appended to the new file", async () => {
    // Opened before the rename, written after it (a writer paused between its open and its write), while its next
    // line already went to the new file by name: the late line can only be carried after that one.
    const { outcome, text } = await replaceWithLateWriter(async (writer, file) => {
      await untilReplaced(file);
      await fsp.appendFile(file, "e\n");
      await writer.write("d\n");
      await writer.close();
    });
    expect(outcome).toEqual({ replaced: true, carried: 2, outOfOrder: 2 });
    expect(text).toBe("A\ne\nd\n");
  });

  it("reports nothing out of order when late bytes were carried before any other append", async () => {
    const { outcome, text } = await replaceWithLateWriter(async (writer, file) => {
      await untilReplaced(file);
      await writer.write("d\n");
      await writer.close();
      while (!(await fsp.readFile(file, "utf8")).endsWith("d\n")) await new Promise((r) => setTimeout(r, 1));
      await fsp.appendFile(file, "e\n");
    });
    expect(outcome).toEqual({ replaced: true, carried: 2 });
    expect(text).toBe("A\nd\ne\n");
  });
});
