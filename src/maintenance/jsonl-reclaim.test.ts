import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jsonlOf, rewrittenSession, text, type Entry } from "../../test/support/rewritten-session.js";
import { useTempDir } from "../../test/support/temp-dir.js";
import { createArtifactStore } from "../artifacts/store.js";
import { hostLockPath } from "../host/session-lock.js";
import { reclaimJsonlBranches, RECLAIM_RATIO } from "./jsonl-reclaim.js";
import { readJsonlTranscript } from "./transcript-jsonl.js";

const root = useTempDir("jsonl-reclaim-");
const setup = async (lines: Entry[]) => {
  const file = path.join(root(), "sess.jsonl");
  await fsp.writeFile(file, jsonlOf(lines), { mode: 0o600 });
  const store = createArtifactStore({ root: path.join(root(), "artifacts") });
  return { file, store, deps: { store, agentDir: root(), origin: { agentId: "main", sessionKey: "agent:main:s" } } };
};
const linesOf = (text: string) => text.split("\n").filter(Boolean);

describe("reclaiming superseded branches of a JSONL transcript", () => {
  it("moves them into the store, leaves what the host loads byte for byte, and loses no line", async () => {
    const { lines, labelled } = rewrittenSession(16);
    const { file, store, deps } = await setup(lines);
    const before = await fsp.readFile(file, "utf8");
    const branchBefore = (await readJsonlTranscript(file)).branch.map((e) => e.id);
    const r = await reclaimJsonlBranches(file, deps);
    expect(r).toMatchObject({ reclaimed: true, bytesBefore: Buffer.byteLength(before) });
    const after = await fsp.readFile(file, "utf8");
    expect(Buffer.byteLength(after)).toBe(r.bytesAfter);
    expect(Buffer.byteLength(after) * RECLAIM_RATIO).toBeLessThan(Buffer.byteLength(before));
    expect((await readJsonlTranscript(file)).branch.map((e) => e.id)).toEqual(branchBefore);
    // The header, and the entry the label names with its chain, stay; the other original entries leave.
    const keptIds = linesOf(after).map((l) => (JSON.parse(l) as Entry).id);
    expect(keptIds).toEqual(expect.arrayContaining(["sess", "a0", "a1", "a2", "a3", labelled, "k1", "l1"]));
    expect(keptIds).not.toContain("a5");
    // Every original line is in the file or in the stored blob, as written, once.
    const blob = (await store.read(r.handle!)).toString("utf8");
    expect(linesOf(blob)).toHaveLength(r.linesDropped!);
    expect([...linesOf(after), ...linesOf(blob)].sort()).toEqual(linesOf(before).sort());
    // The kept lines keep their order.
    const order = linesOf(before).filter((l) => linesOf(after).includes(l));
    expect(linesOf(after)).toEqual(order);
    expect((await fsp.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fsp.readdir(root())).filter((n) => n.includes(".reclaim-"))).toEqual([]);
  });

  it("two reclaims at once: one replaces the file, the other finds nothing to do; no line lost", async () => {
    const { lines } = rewrittenSession(16);
    const { file, store, deps } = await setup(lines);
    const before = await fsp.readFile(file, "utf8");
    const results = await Promise.all([reclaimJsonlBranches(file, deps), reclaimJsonlBranches(file, deps)]);
    expect(results.map((r) => r.reclaimed).sort()).toEqual([false, true]);
    const done = results.find((r) => r.reclaimed)!;
    const after = await fsp.readFile(file, "utf8");
    const blob = (await store.read(done.handle!)).toString("utf8");
    expect([...linesOf(after), ...linesOf(blob)].sort()).toEqual(linesOf(before).sort());
  });

  it("leaves a file alone while the user's newest message awaits its answer", async () => {
    const { file, deps } = await setup(rewrittenSession(16, { inFlight: true }).lines);
    const before = await fsp.readFile(file);
    expect(await reclaimJsonlBranches(file, deps)).toMatchObject({ reclaimed: false, reason: "turn_in_flight" });
    expect((await fsp.readFile(file)).equals(before)).toBe(true);
  });

  it("leaves a file alone while another process holds the host's session lock", async () => {
    const { file, deps } = await setup(rewrittenSession(16).lines);
    await fsp.writeFile(hostLockPath(file), JSON.stringify({ pid: process.ppid, createdAt: new Date().toISOString() }));
    const before = await fsp.readFile(file);
    expect(await reclaimJsonlBranches(file, deps)).toMatchObject({ reclaimed: false, reason: "locked" });
    expect((await fsp.readFile(file)).equals(before)).toBe(true);
  });

  it("reclaims a superseded message at any size: 2026.4.24's chat history lists every message line", async () => {
    const header = { type: "session", id: "sess", parentId: null, version: 3 } as Entry;
    const u1 = { type: "message", id: "u1", parentId: "sess", message: text("user", "Turn 1: check") } as Entry;
    const a1 = { type: "message", id: "a1", parentId: "u1", message: text("assistant", "Answer 1, long") } as Entry;
    const b1 = { type: "message", id: "b1", parentId: "u1", message: text("assistant", "[stub of answer 1]") } as Entry;
    const { file, store, deps } = await setup([header, u1, a1, b1]);
    // Not on the lines whose host ends a turn when the file is replaced between its lock releases.
    expect(await reclaimJsonlBranches(file, deps)).toMatchObject({ reclaimed: false, reason: "small" });
    const r = await reclaimJsonlBranches(file, { ...deps, messagesAtAnySize: true });
    expect(r).toMatchObject({ reclaimed: true, linesDropped: 1 });
    expect(linesOf(await fsp.readFile(file, "utf8"))).toEqual([header, u1, b1].map((l) => JSON.stringify(l)));
    expect(await store.readText(r.handle as string)).toBe(`${JSON.stringify(a1)}\n`);
  });

  it("leaves a file whose superseded branches are small beside what the host loads", async () => {
    // Only the first turn's output was rewritten: the active branch still holds the other outputs.
    const { lines } = rewrittenSession(16);
    const kept = lines.filter((l) => !String(l.id).startsWith("b") && l.type !== "compaction" && l.type !== "label");
    const fork = { type: "message", id: "x1", parentId: kept.at(-1)!.id, message: text("assistant", "Answer again") };
    const { file, deps } = await setup([...kept, fork as Entry]);
    const before = await fsp.readFile(file);
    expect(await reclaimJsonlBranches(file, deps)).toMatchObject({ reclaimed: false, reason: "within_ratio" });
    expect((await fsp.readFile(file)).equals(before)).toBe(true);
  });
});
