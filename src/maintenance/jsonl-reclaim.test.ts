import { spawnSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prng } from "../../test/support/prng.js";
import { jsonlOf, rewrittenSession, text, type Entry } from "../../test/support/rewritten-session.js";
import { useTempDir } from "../../test/support/temp-dir.js";
import { handleForBytes, createArtifactStore, type ArtifactStore } from "../artifacts/index.js";
import { hostLockPath } from "../host/session-lock.js";
import { reclaimJsonlBranches, RECLAIM_RATIO } from "./jsonl-reclaim.js";
import { RECLAIM_LINK_MAX_AGE_MS } from "./reclaim-links.js";
import {
  PACKED_BRANCHES_KIND,
  RECLAIM_PART_MIN_CHARS,
  readReclaimedLines,
  TRANSCRIPT_PART_KIND,
} from "./reclaimed-lines.js";
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
    const blob = (await readReclaimedLines(store, r.handle!)).toString("utf8");
    expect(linesOf(blob)).toHaveLength(r.linesDropped!);
    expect([...linesOf(after), ...linesOf(blob)].sort()).toEqual(linesOf(before).sort());
    // The kept lines keep their order.
    const order = linesOf(before).filter((l) => linesOf(after).includes(l));
    expect(linesOf(after)).toEqual(order);
    expect((await fsp.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fsp.readdir(root())).filter((n) => n.includes(".reclaim-"))).toEqual([]);
  });

  it("sweeps the links killed reclaims left beside transcripts, and no running reclaim's link", async () => {
    const { lines } = rewrittenSession(4);
    const { file, deps } = await setup(lines);
    const other = path.join(root(), "gone.jsonl");
    const deadPid = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const now = Date.now();
    const names = {
      dead: `${file}.reclaim-${deadPid}-${now - 1_000}`,
      deadOther: `${other}.reclaim-${deadPid}-${now - 1_000}`,
      reusedPid: `${file}.reclaim-1-${now - RECLAIM_LINK_MAX_AGE_MS - 60_000}`,
      running: `${file}.reclaim-1-${now - 1_000}`,
    };
    for (const link of Object.values(names)) await fsp.link(file, link);
    expect(await reclaimJsonlBranches(file, deps)).toMatchObject({ reclaimed: false, reason: "small" });
    const left = (await fsp.readdir(root())).filter((n) => n.includes(".reclaim-"));
    expect(left).toEqual([path.basename(names.running)]);
  });

  it("two reclaims at once: one replaces the file, the other finds nothing to do; no line lost", async () => {
    const { lines } = rewrittenSession(16);
    const { file, store, deps } = await setup(lines);
    const before = await fsp.readFile(file, "utf8");
    const results = await Promise.all([reclaimJsonlBranches(file, deps), reclaimJsonlBranches(file, deps)]);
    expect(results.map((r) => r.reclaimed).sort()).toEqual([false, true]);
    const done = results.find((r) => r.reclaimed)!;
    const after = await fsp.readFile(file, "utf8");
    const blob = (await readReclaimedLines(store, done.handle!)).toString("utf8");
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

/** `chars` characters of seeded noise (gzip cannot shrink copies of it away). */
const noise = (seed: number, chars: number): string => {
  const next = prng(seed);
  return Array.from({ length: chars }, () => String.fromCharCode(0x21 + Math.floor(next() * 90))).join("");
};
const header = JSON.stringify({ type: "session", id: "sess", parentId: null, version: 3 });
const userLine = JSON.stringify({
  type: "message",
  id: "u1",
  parentId: "sess",
  message: text("user", "Turn 1: check"),
});
/** The lines a reclaim drops, then the answer on the branch the host loads, after the user's message. */
const fileWithSuperseded = (superseded: readonly string[]): string => {
  const answer = { type: "message", id: "live", parentId: "u1", message: text("assistant", "Answer 1") };
  return [header, userLine, ...superseded, JSON.stringify(answer)].map((l) => `${l}\n`).join("");
};

describe("reclaimed lines in the store: every big string once, the lines given back as written", () => {
  it("three reclaims of rewrites that repeat one 100 KB output store that output once", async () => {
    const output = noise(1, 100_000);
    // The host's rewrite re-appends the tail of the branch: the same output under a new id and timestamp.
    const rewrite = (n: number) =>
      [
        {
          type: "message",
          id: `t${n}`,
          parentId: "u1",
          timestamp: `2026-04-2${n}T10:00:00.000Z`,
          message: { role: "toolResult", toolCallId: "c1", content: [{ type: "text", text: output }] },
        },
        {
          type: "message",
          id: `a${n}`,
          parentId: `t${n}`,
          timestamp: `2026-04-2${n}T10:00:01.000Z`,
          message: text("assistant", `Answer, rewrite ${n}`),
        },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join("");
    const file = path.join(root(), "sess.jsonl");
    const store = createArtifactStore({ root: path.join(root(), "artifacts") });
    // What the blobs of the lines as written would take: the same lines, stashed whole.
    const plain = createArtifactStore({ root: path.join(root(), "plain") });
    const deps = { store, agentDir: root(), origin: { agentId: "main" }, messagesAtAnySize: true };
    await fsp.writeFile(file, `${header}\n${userLine}\n${rewrite(0)}`);
    for (const n of [1, 2, 3]) {
      await fsp.appendFile(file, rewrite(n));
      const r = await reclaimJsonlBranches(file, deps);
      expect(r).toMatchObject({ reclaimed: true, linesDropped: 2 });
      const dropped = await readReclaimedLines(store, r.handle!);
      expect(dropped.toString("utf8")).toBe(rewrite(n - 1));
      await plain.stash(dropped);
    }
    const big: string[] = [];
    const kinds: string[] = [];
    for await (const meta of store.list()) {
      if (meta.bytes >= 100_000) big.push(meta.handle);
      kinds.push(meta.kind);
    }
    // One copy, under the handle a capture of the same output has.
    expect(big).toEqual([handleForBytes(output)]);
    expect(kinds.sort()).toEqual([...Array<string>(3).fill(PACKED_BRANCHES_KIND), TRANSCRIPT_PART_KIND]);
    const stored = (await store.stats()).storedBytes;
    const oneCopy = (await store.readMeta(handleForBytes(output))).storedBytes;
    expect(stored).toBeLessThan(oneCopy + 3 * 1_024);
    expect((await plain.stats()).storedBytes).toBeGreaterThan(3 * oneCopy);
  });

  const long = (seed: number) => noise(seed, RECLAIM_PART_MIN_CHARS + 100);
  const message = (id: string, body: string) =>
    JSON.stringify({
      type: "message",
      id,
      parentId: "u1",
      message: { role: "toolResult", content: [{ type: "text", text: body }] },
    });

  /** Reclaims a file whose superseded lines are `superseded`; the blob's stored bytes and its lines given back. */
  const reclaimOf = async (superseded: string[]) => {
    const file = path.join(root(), "sess.jsonl");
    await fsp.writeFile(file, fileWithSuperseded(superseded));
    const store = createArtifactStore({ root: path.join(root(), "artifacts") });
    const r = await reclaimJsonlBranches(file, { store, agentDir: root(), origin: {}, messagesAtAnySize: true });
    expect(r).toMatchObject({ reclaimed: true, linesDropped: superseded.length });
    return { raw: (await store.read(r.handle!)).toString("utf8"), back: await readReclaimedLines(store, r.handle!) };
  };
  const asWritten = (lines: readonly string[]) => Buffer.from(lines.map((l) => `${l}\n`).join(""));

  it("gives back lines with unicode, U+2028, escapes and the reference key itself byte for byte", async () => {
    const unicode = `Grüße, 日本語, 🎉, a\u2028line\u2029break, "quoted" \\ back\tslash\n${long(2)}`;
    const keyed = JSON.stringify({
      type: "message",
      id: "k",
      parentId: "u1",
      message: { role: "toolResult", content: [{ type: "text", text: long(3) }] },
      details: { $ledgerPart: handleForBytes(long(3)) },
    });
    // JSON.stringify writes U+2028 as is and a lone surrogate as an escape, which UTF-8 cannot carry in a part.
    const escaped = message("e", long(4)).replace('"}]', '\\u2028"}]');
    const lone = message("s", `${long(5)}\ud800`);
    const lines = [message("p1", unicode), keyed, escaped, lone, message("p2", unicode)];
    expect(escaped).toContain("\\u2028");
    expect(lone).toContain("\\ud800");
    const { raw, back } = await reclaimOf(lines);
    expect(back.equals(asWritten(lines))).toBe(true);
    // The key, the escape and the surrogate lines are stored as written; the repeated string once, apart.
    for (const line of [keyed, escaped, lone]) expect(raw).toContain(line);
    expect(raw).not.toContain(long(2));
    expect(raw).not.toContain("Grüße");
  });

  it("keeps a line not in JSON.stringify's form as written, and gives it back", async () => {
    const spaced = message("w", long(6)).replace(/","/g, '", "').replace(/":/g, '": ');
    const packed = message("q", long(7));
    expect(JSON.stringify(JSON.parse(spaced))).not.toBe(spaced);
    const { raw, back } = await reclaimOf([spaced, packed]);
    expect(back.equals(asWritten([spaced, packed]))).toBe(true);
    expect(raw).toContain(spaced);
    expect(raw).not.toContain(long(7));
  });

  it("a part that reads back different stops the reclaim: the file is left as it was", async () => {
    const file = path.join(root(), "sess.jsonl");
    await fsp.writeFile(file, fileWithSuperseded([message("p", long(8))]));
    const before = await fsp.readFile(file);
    const store = createArtifactStore({ root: path.join(root(), "artifacts") });
    const flipped: ArtifactStore = new Proxy(store, {
      get(target, key) {
        if (key !== "read") return Reflect.get(target, key, target) as unknown;
        return async (handle: string) => {
          const bytes = await target.read(handle);
          return handle === handleForBytes(long(8)) ? Buffer.from(bytes.toString("utf8").replace(/.$/u, "?")) : bytes;
        };
      },
    });
    const deps = { store: flipped, agentDir: root(), origin: {}, messagesAtAnySize: true };
    await expect(reclaimJsonlBranches(file, deps)).rejects.toMatchObject({ code: "artifact_corrupt" });
    expect((await fsp.readFile(file)).equals(before)).toBe(true);
  });
});
