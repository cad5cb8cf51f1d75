import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArtifactStore } from "../artifacts/index.js";
import { agentRoot, artifactRoot } from "../state/paths.js";
import { hostFunction, installedHostDists } from "../../test/support/host-dist.js";
import {
  createCaptureIndex,
  type CaptureIndex,
  type CaptureListingCache,
  type CaptureRecordCache,
} from "./capture-index.js";
import { LRUCache } from "lru-cache";
import { capturesAfterToolCall } from "./capture-hook.js";
import { matchHostCopy, MIDDLE_OMISSION_MARKER, parseHostCopy } from "../results/host-copy.js";
import { readHostSpillFile } from "./spill-file.js";
import {
  hostToolCallIdForms,
  mayBeRewrittenForm,
  normalizeToolCallId,
  strict9ToolCallId,
  strictToolCallId,
  toolCallIdsMatch,
} from "./tool-call-id.js";

/** Provider-shaped ids: OpenAI `call_…`, Anthropic `toolu_01…`, Kimi, long and short ones. */
const PROVIDER_IDS = [
  "call_AbC_12-x",
  "call_t1_r1",
  "toolu_01A09q90qw90lq917835lq9",
  "toolu_01XFDUDYJgAACzvnptvVoYEL_3-0",
  "call_7i3W_0-0x1X2Y3Z",
  "call_" + "aB-_".repeat(15),
  "fc_68b1-x",
];

function numbered(lines: number): string {
  return (
    Array.from({ length: lines }, (_, i) => `line ${String(i + 1).padStart(4, "0")} ${"abcdefghij".repeat(5)}`).join(
      "\n",
    ) + "\n"
  );
}

describe("where a host line captures tool outputs", () => {
  it("in after_tool_call from 2026.6.11 and for a version the table does not place; at turn end before", () => {
    expect(["2026.4.24", "2026.5.28", "2026.6.11", "2026.9.6"].map(capturesAfterToolCall)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(capturesAfterToolCall(undefined)).toBe(true);
  });
});

describe("tool-call ids as the hosts rewrite them", () => {
  it("normalises to letters and digits and knows the host's forms", () => {
    expect(normalizeToolCallId("call_AbC_12-x")).toBe("callAbC12x");
    expect(strictToolCallId("call_t1_r1")).toBe("callt1r1");
    expect(strictToolCallId("functions.read:0")).toBe("functions.read:0");
    expect(strict9ToolCallId("call_AbC_12-x")).toBe("callAbC12");
    expect(hostToolCallIdForms("call_t1_r1").has("callt1r1")).toBe(true);
    expect(toolCallIdsMatch("call_t1_r1", "callt1r1")).toBe(true);
    expect(toolCallIdsMatch("toolu_01ABC", "toolu_01ABC")).toBe(true);
    expect(toolCallIdsMatch("call_t1_r1", "callt1r2")).toBe(false);
    expect(toolCallIdsMatch("call_1", "call_2")).toBe(false);
  });

  it("rules out an unrelated id without hashing, and never one of the host's forms", () => {
    const alnum = (n: number) => "aB3".repeat(20).slice(0, n);
    const raws = [
      ...PROVIDER_IDS,
      "functions.read:0",
      "functions.read",
      "functions.a-b_c:12",
      "",
      "__-",
      "\ud800",
      "../../etc/passwd",
      "t-1",
      "c5",
      ...[1, 7, 8, 9, 10, 23, 24, 30, 31, 32, 33, 39, 40, 41, 64].flatMap((n) => [alnum(n), `call_${alnum(n)}`]),
    ];
    // toolCallIdsMatch asks for the forms only when the filter lets an id through: one that kept out a form
    // would change its answer.
    const ruledOut: string[] = [];
    for (const raw of raws) {
      const a = normalizeToolCallId(raw);
      for (const form of hostToolCallIdForms(raw))
        if (form !== raw && !mayBeRewrittenForm(raw, a, form)) ruledOut.push(`${raw} → ${form}`);
    }
    expect(ruledOut.slice(0, 5)).toEqual([]);
    // What a session's other captures look like to a lookup: ruled out before any hash.
    expect(mayBeRewrittenForm("t-1", "t1", "c5")).toBe(false);
    expect(mayBeRewrittenForm("call_t1_r1", "callt1r1", "callt2r1")).toBe(false);
    expect(
      mayBeRewrittenForm(
        "toolu_01A09q90qw90lq917835lq9",
        "toolu01A09q90qw90lq917835lq9",
        "toolu01XFDUDYJgAACzvnptvVoYEL30",
      ),
    ).toBe(false);
    expect(mayBeRewrittenForm("call_AbC_12-x", "callAbC12x", "x".repeat(41))).toBe(false);
  });

  const hosts = installedHostDists();
  it.skipIf(hosts.length === 0)(
    `matches every rewrite of each installed host's own sanitiser (${hosts.map((h) => h.version).join(", ")})`,
    async () => {
      for (const { version, dist } of hosts) {
        type Sanitize = (messages: unknown[], mode: string, options?: Record<string, unknown>) => unknown[];
        const sanitize = await hostFunction<Sanitize>(dist, "tool-call-id-", "sanitizeToolCallIdsForCloudCodeAssist");
        expect(sanitize, `sanitizer in ${version}`).toBeDefined();
        // Each id twice in one transcript (providers and mocks reuse ids), in every mode and duplicate style.
        const transcript = PROVIDER_IDS.flatMap((id) => [id, id]).flatMap((id) => [
          { role: "assistant", content: [{ type: "toolCall", id, name: "exec", arguments: {} }] },
          { role: "toolResult", toolCallId: id, toolName: "exec", content: [{ type: "text", text: "x" }] },
        ]);
        const variants: [string, Record<string, unknown>][] = [
          ["strict", {}],
          ["strict", { preserveNativeAnthropicToolUseIds: true }],
          ["strict", { duplicateToolCallIdStyle: "openai" }],
          ["strict9", {}],
        ];
        for (const [mode, opts] of variants) {
          const out = (sanitize as Sanitize)(transcript, mode, opts) as { role: string; toolCallId?: string }[];
          const results = out.filter((m) => m.role === "toolResult");
          results.forEach((m, i) => {
            const raw = PROVIDER_IDS[Math.floor(i / 2)] as string;
            expect(
              toolCallIdsMatch(raw, m.toolCallId as string),
              `${version} ${mode} ${JSON.stringify(opts)}: ${raw} → ${m.toolCallId}`,
            ).toBe(true);
          });
        }
      }
    },
  );
});

describe("host copies", () => {
  const original = numbered(2_500);

  it("verifies the host's own truncations of an original and rejects other content", async () => {
    const hosts = installedHostDists();
    const current = hosts.find((h) => h.version === "2026.9.6");
    type Truncate = (text: string, maxChars: number, options?: Record<string, unknown>) => string;
    const truncate = current
      ? await hostFunction<Truncate>(current.dist, "tool-result-truncation-", "truncateToolResultText")
      : undefined;
    const withErrorTail = `${original}FATAL: disk full, exit code 1\n`;
    const copies: [string, string][] = truncate
      ? [
          [original, truncate(original, 16_000)],
          [withErrorTail, truncate(withErrorTail, 16_000)],
        ]
      : [
          [
            original,
            `${original.slice(0, 15_000)}[... ${original.length - 15_000} more characters truncated; rerun with narrower args if needed]`,
          ],
        ];
    for (const [source, copy] of copies) {
      expect(copy.length).toBeLessThan(source.length);
      expect(matchHostCopy(copy, source)).toBe("exact");
      // Another output with the same head but another length: not this copy's original.
      expect(matchHostCopy(copy, `${source}one more line\n`)).toBe("contained");
      expect(matchHostCopy(copy, numbered(2_400))).not.toBe("exact");
      expect(matchHostCopy(copy, source.replace("line 0002", "line 0X02"))).toBe("none");
    }
    if (truncate) expect(parseHostCopy(copies[1]?.[1] ?? "").tail).toContain("FATAL: disk full");
  });

  it("parses head, tail and the omitted count", () => {
    const copy = `head${MIDDLE_OMISSION_MARKER}tail[... 10 more characters truncated; rerun with narrower args if needed]`;
    expect(parseHostCopy(copy)).toEqual({
      head: "head",
      tail: "tail",
      omitted: 10,
      keptChars: 8 + MIDDLE_OMISSION_MARKER.length,
    });
    expect(parseHostCopy("plain")).toEqual({ head: "plain", keptChars: 5 });
  });
});

describe("capture index", () => {
  let tmp: string;
  let index: CaptureIndex;
  const stash = async (text: string) =>
    (await createArtifactStore({ root: artifactRoot(tmp, "main") }).stash(text)).handle;
  const record = async (toolCallId: string, text: string, session: { sessionKey?: string; sessionId?: string }) => {
    const handle = await stash(text);
    await index.record({
      toolCallId,
      toolName: "exec",
      ...session,
      handle,
      chars: text.length,
      lines: 1,
      source: "after-tool-call",
    });
    return handle;
  };
  const hostCut = (text: string) =>
    `${text.slice(0, 15_899)}[... ${text.length - 15_899} more characters truncated; rerun with narrower args if needed]`;

  beforeEach(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-capture-"));
    index = createCaptureIndex(tmp, "main");
  });
  afterEach(async () => {
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it("links a re-id'd, truncated host copy to its capture, for each provider id shape", async () => {
    for (const [i, id] of PROVIDER_IDS.entries()) {
      const text = `${i}\n${numbered(1_700)}`;
      const handle = await record(id, text, { sessionKey: "agent:main:s1", sessionId: "sid-1" });
      for (const hostId of [id, strictToolCallId(id).slice(0, 40), strict9ToolCallId(id)]) {
        expect(
          index.resolve({
            hostId,
            hostText: hostCut(text),
            session: { sessionKey: "agent:main:s1", sessionId: "sid-1" },
          })?.handle,
          `${id} as ${hostId}`,
        ).toBe(handle);
      }
    }
  });

  it("rejects a capture whose content the host copy was not cut from", async () => {
    await record("call_1", numbered(1_700), { sessionKey: "agent:main:s1" });
    const other = numbered(1_800);
    expect(
      index.resolve({ hostId: "call1", hostText: hostCut(other), session: { sessionKey: "agent:main:s1" } }),
    ).toBeUndefined();
  });

  it("never links across sessions: two sessions reusing call_1 each get their own output", async () => {
    const x = `session X\n${numbered(1_700)}`;
    const y = `session Y\n${numbered(1_700)}`;
    const hx = await record("call_1", x, { sessionKey: "agent:main:x", sessionId: "sx" });
    const hy = await record("call_1", y, { sessionKey: "agent:main:y", sessionId: "sy" });
    expect(
      index.resolve({ hostId: "call1", hostText: hostCut(x), session: { sessionKey: "agent:main:x", sessionId: "sx" } })
        ?.handle,
    ).toBe(hx);
    expect(
      index.resolve({ hostId: "call1", hostText: hostCut(y), session: { sessionKey: "agent:main:y", sessionId: "sy" } })
        ?.handle,
    ).toBe(hy);
    // Y's copy of X's very output (same bytes) still does not reach X's capture.
    expect(
      index.resolve({
        hostId: "call1",
        hostText: hostCut(x),
        session: { sessionKey: "agent:main:y", sessionId: "sy" },
      }),
    ).toBeUndefined();
    expect(index.resolve({ hostId: "call1", hostText: hostCut(x), session: {} })).toBeUndefined();
  });

  it("prefers a fuller capture of the same call when the verified one is its prefix", async () => {
    const full = numbered(2_500);
    const capped = full.slice(0, 100_000);
    await record("call_t1_r1", capped, { sessionKey: "k" });
    const fullHandle = await record("call_t1_r1", full, { sessionKey: "k" });
    const found = index.resolve({ hostId: "callt1r1", hostText: hostCut(capped), session: { sessionKey: "k" } });
    expect(found?.handle).toBe(fullHandle);
    expect(found?.chars).toBe(full.length);
  });

  it("a runtime that keeps folder listings still sees every record another writer adds", async () => {
    const records = new LRUCache<string, never>({ max: 1_000 }) as unknown as CaptureRecordCache;
    const listings = new LRUCache({ max: 10 }) as CaptureListingCache;
    const session = { sessionKey: "agent:main:kept" };
    const folder = path.join(agentRoot(tmp, "main"), "captures", "v2");
    const kept = () => createCaptureIndex(tmp, "main", records, listings);
    const handles = (callId: string) =>
      kept()
        .ofCall(callId, session)
        .map((r) => r.handle);
    const settle = async () => {
      // The folder last changed long ago: its listing is trusted while its time stays as it is.
      const past = new Date(Date.now() - 60_000);
      for (const d of await fsp.readdir(folder)) await fsp.utimes(path.join(folder, d), past, past);
    };
    const first = await record("call_a", `a\n${numbered(50)}`, session);
    await settle();
    expect(handles("call_a")).toEqual([first]);
    expect(handles("call_b")).toEqual([]);
    // Another writer (the plain index of this suite) adds a record: the folder's time moves, the listing is redone.
    const second = await record("call_b", `b\n${numbered(60)}`, session);
    expect(handles("call_b")).toEqual([second]);
    // A folder changed just now is listed again on every call: a record added within its time's granularity (here:
    // the time put back as it was) is still seen.
    const justNow = Math.floor(Date.now() / 1000);
    const setTimes = async () => {
      for (const d of await fsp.readdir(folder)) await fsp.utimes(path.join(folder, d), justNow, justNow);
    };
    await setTimes();
    expect(handles("call_a")).toEqual([first]);
    const third = await record("call_a", `a again\n${numbered(70)}`, session);
    await setTimes();
    expect(handles("call_a").sort()).toEqual([first, third].sort());
  });
});

describe("spill files", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-spill-"));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it("reads only the host's own: inside its temp dir, host-named, 0600, a regular file", async () => {
    const good = path.join(dir, "openclaw-bash-0123456789abcdef.log");
    await fsp.writeFile(good, "full output\n", { mode: 0o600 });
    expect(await readHostSpillFile(good, { spillDirs: [dir] })).toEqual({ text: "full output\n" });
    expect(await readHostSpillFile("/etc/passwd", { spillDirs: [dir] })).toEqual({ refused: "bad-name" });
    expect(await readHostSpillFile(good, { spillDirs: [path.join(dir, "elsewhere")] })).toEqual({
      refused: "outside-temp-dir",
    });
    expect(await readHostSpillFile("openclaw-bash-0123456789abcdef.log", { spillDirs: [dir] })).toEqual({
      refused: "not-absolute",
    });
    const open = path.join(dir, "openclaw-bash-fedcba9876543210.log");
    await fsp.writeFile(open, "x", { mode: 0o644 });
    await fsp.chmod(open, 0o644);
    expect(await readHostSpillFile(open, { spillDirs: [dir] })).toEqual({ refused: "not-private" });
    const link = path.join(dir, "openclaw-bash-aaaaaaaaaaaaaaaa.log");
    await fsp.symlink("/etc/passwd", link);
    expect(await readHostSpillFile(link, { spillDirs: [dir] })).toEqual({ refused: "not-regular-file" });
    const sub = path.join(dir, "sub");
    await fsp.mkdir(sub);
    const nested = path.join(sub, "openclaw-bash-bbbbbbbbbbbbbbbb.log");
    await fsp.writeFile(nested, "x", { mode: 0o600 });
    expect(await readHostSpillFile(nested, { spillDirs: [dir] })).toEqual({ refused: "outside-temp-dir" });
  });
});

describe("2026.4.24's transcript copy", () => {
  it("is read as the host's truncation: the notice follows the kept head directly", () => {
    const original = `${"row ok\n".repeat(3_000)}end`;
    const copy = `${original.slice(0, 15_000)}[... ${original.length - 15_000} more characters truncated]`;
    expect(parseHostCopy(copy)).toEqual({
      head: original.slice(0, 15_000),
      omitted: original.length - 15_000,
      keptChars: 15_000,
    });
    expect(matchHostCopy(copy, original)).toBe("exact");
  });
});
