import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { handleForBytes, HANDLE_PREFIX, createArtifactStore } from "../../artifacts/index.js";
import { artifactPaths } from "../../artifacts/format/blob-path.js";
import { stashReclaimedLines } from "../../maintenance/reclaimed-lines.js";
import { artifactRoot } from "../../state/paths.js";
import { runArtifactCommand } from "./artifact.js";
import { parseArgv, parseDuration, parseSize } from "../core/args.js";

let tmp: string;
let state: string;
const LOG = Array.from({ length: 500 }, (_, i) => `row ${i + 1}${i === 299 ? " ERROR timeout" : ""}`).join("\n");

beforeEach(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-cli-"));
  state = path.join(tmp, "ledger");
});
afterEach(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

async function run(argv: string[], stdin = ""): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const env = { HOME: path.join(tmp, "home"), OPENCLAW_STATE_DIR: path.join(tmp, "oc") };
  const code = await runArtifactCommand([...argv, "--state-dir", state], {
    stdout,
    stderr,
    stdin: Readable.from([Buffer.from(stdin)]),
    env,
  });
  return { code, out, err };
}

describe("context-ledger artifact", () => {
  it("stashes from a file and from stdin, with --json receipts", async () => {
    const file = path.join(tmp, "out.log");
    await fsp.writeFile(file, LOG);
    const a = await run(["stash", file]);
    expect(a).toMatchObject({ code: 0, out: `${handleForBytes(LOG)}\n` });
    const b = await run(["stash", "-", "--json", "--agent", "ops"], LOG);
    const receipt = JSON.parse(b.out);
    expect(receipt).toMatchObject({
      schema: "context-ledger.artifact.stash.v1",
      handle: handleForBytes(LOG),
      created: true,
      agentId: "ops",
    });
    expect(receipt.meta).toMatchObject({ bytes: LOG.length, lines: 500, kind: "cli" });
    expect(JSON.parse((await run(["stash", file, "--json"])).out).created).toBe(false);
  });

  it("fetches slices with flags or a JSON selector and reports the notice on stderr", async () => {
    const handle = (await run(["stash"], LOG)).out.trim();
    const g = await run(["fetch", handle, "--pattern", "error", "--flags", "i"]);
    expect(g).toMatchObject({
      code: 0,
      out: "300:row 300 ERROR timeout\n",
      err: "grep /error/i: 1 matching lines of 500, 1 shown\n",
    });
    const r = await run(["fetch", handle, "--selector", '{"kind":"range","start":2,"end":3}', "--json"]);
    expect(JSON.parse(r.out)).toMatchObject({
      schema: "context-ledger.artifact.fetch.v1",
      text: "row 2\nrow 3",
      truncated: false,
      totalLines: 500,
    });
    const t = await run(["fetch", handle, "--selector", "tail", "--lines", "1"]);
    expect(t.out).toBe("row 500\n");
    // One line-range syntax everywhere: `--lines A-B` alone is lines A to B, as the tool's and the chat's `lines`.
    expect((await run(["fetch", handle, "--lines", "299-300"])).out).toBe("row 299\nrow 300 ERROR timeout\n");
    expect((await run(["fetch", handle, "--lines", "42"])).out).toBe("row 42\n");
    // Anything else is refused with the forms it takes, never ignored.
    const bad = await run(["fetch", handle, "--lines", "x-y"]);
    expect(bad.code).toBe(4);
    expect(bad.err).toMatch(/Expected --lines A-B/);
    const extra = await run(["fetch", handle, "--lines", "2-3", "--pattern", "row"]);
    expect(extra.code).toBe(4);
    expect(extra.err).toMatch(/--pattern/);
    expect((await run(["fetch", handle, "--selector", "head", "--start", "5"])).code).toBe(4);
    expect((await run(["fetch", handle, "--raw"])).out).toBe(LOG);
    const peek = JSON.parse((await run(["peek", handle, "--json"])).out);
    expect(peek).toMatchObject({ schema: "context-ledger.artifact.peek.v1", handle, meta: { lines: 500 } });
    expect(peek.preview.length).toBeLessThan(700);
  });

  it("fetch --unpack prints the lines a transcript reclaim stored, as written; other artifacts are refused", async () => {
    const store = createArtifactStore({ root: artifactRoot(state, "main") });
    const lines = [
      JSON.stringify({ type: "message", id: "m1", message: { role: "toolResult", content: LOG } }),
      JSON.stringify({ type: "message", id: "m2", message: { role: "assistant", content: "done" } }),
    ];
    const { handle, parts } = await stashReclaimedLines(
      store,
      lines.map((l) => Buffer.from(l)),
      {},
    );
    expect(parts).toEqual([handleForBytes(LOG)]);
    expect((await run(["fetch", handle, "--raw"])).out).not.toContain(LOG);
    expect(await run(["fetch", handle, "--unpack"])).toMatchObject({ code: 0, out: `${lines.join("\n")}\n` });
    const other = await run(["fetch", parts[0] as string, "--unpack"]);
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/Expected reclaimed transcript lines/);
  });

  it("maps failures to exit codes 1, 2, 3 and 4", async () => {
    const handle = (await run(["stash"], "hello corrupt world")).out.trim();
    expect((await run(["fetch", handle, "--bogus"])).code).toBe(1);
    expect((await run(["frobnicate"])).code).toBe(1);
    expect((await run(["fetch"])).code).toBe(1);
    expect((await run(["fetch", `${HANDLE_PREFIX}${"0".repeat(64)}`])).code).toBe(2);
    expect((await run(["rm", `${HANDLE_PREFIX}${"0".repeat(64)}`])).code).toBe(2);
    expect((await run(["fetch", `${HANDLE_PREFIX}${"z".repeat(64)}`])).code).toBe(4);
    expect((await run(["fetch", handle.slice(-64, -58)])).code).toBe(4);
    expect((await run(["fetch", handle, "--pattern", "(a+)+"])).code).toBe(4);
    expect((await run(["fetch", handle, "--selector", "{nope"])).code).toBe(4);
    await fsp.writeFile(artifactPaths(artifactRoot(state, "main"), handle.slice(-64)).blob, "hello c0rrupt world");
    const bad = await run(["fetch", handle]);
    expect(bad.code).toBe(3);
    expect(bad.out).toBe("");
    expect(bad.err).toMatch(/artifact_corrupt/);
  });

  it("lists, removes and garbage-collects with --dry-run", async () => {
    const a = (await run(["stash"], "first")).out.trim();
    const b = (await run(["stash"], "second")).out.trim();
    const list = JSON.parse((await run(["list", "--json"])).out);
    expect(list).toMatchObject({ schema: "context-ledger.artifact.list.v1", count: 2, bytes: 11 });
    // b is referenced from ledger state: gc keeps it.
    const sessions = path.join(state, "agents", "main", "sessions", "s1");
    await fsp.mkdir(sessions, { recursive: true });
    await fsp.writeFile(path.join(sessions, "state.json"), JSON.stringify({ handles: [b] }));
    const dry = JSON.parse((await run(["gc", "--max-age", "0s", "--dry-run", "--json"])).out);
    expect(dry).toMatchObject({ schema: "context-ledger.artifact.gc.v1", dryRun: true, referencedKept: 1 });
    expect(dry.removed.map((r: { handle: string }) => r.handle)).toEqual([a]);
    expect(JSON.parse((await run(["list", "--json"])).out).count).toBe(2);
    const real = await run(["gc", "--max-age", "0s"]);
    expect(real.out).toMatch(/^removed ledger:v1:sha256:[0-9a-f]{64} 5 B expired/);
    expect(JSON.parse((await run(["list", "--json"])).out).artifacts.map((m: { handle: string }) => m.handle)).toEqual([
      b,
    ]);
    const rm = JSON.parse((await run(["rm", b, "--json"])).out);
    expect(rm).toEqual({ schema: "context-ledger.artifact.rm.v1", agentId: "main", removed: [b], missing: [] });
  });
});

describe("context-ledger artifact: operator details", () => {
  it("list has a header, human sizes and the source, and filters by session, tool and age", async () => {
    await runArtifactCommand(["stash", "-", "--state-dir", state], {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: Readable.from([Buffer.from("one line")]),
      env: {},
    });
    const { createArtifactStore } = await import("../../artifacts/store.js");
    const store = createArtifactStore({ root: artifactRoot(state, "main") });
    await store.stash(LOG, {
      kind: "tool-output",
      origin: { toolName: "exec", sessionKey: "agent:main:a", toolCallId: "call_aB_1-x" },
    });
    const all = await run(["list"]);
    expect(all.out.split("\n")[0]).toMatch(/^HANDLE\s+SIZE\s+LINES\s+FORMAT\s+KIND\s+CREATED\s+SOURCE$/);
    expect(all.out).toMatch(/\s3\.8 KiB\s+500\s+.*exec · session agent:main:a · call call_aB_1-x/);
    expect(all.err).toMatch(/^2 artifacts, 3\.8 KiB original, [\d.]+ (B|KiB) stored\n$/);
    expect(JSON.parse((await run(["list", "--session", "agent:main:a", "--json"])).out).count).toBe(1);
    expect(JSON.parse((await run(["list", "--tool", "browser", "--json"])).out).count).toBe(0);
    expect(JSON.parse((await run(["list", "--since", "1h", "--json"])).out).count).toBe(2);
  });

  it("fetch and peek take a handle's first hex digits (8 or more, either case) where they start one handle", async () => {
    const handle = (await run(["stash"], LOG)).out.trim();
    await run(["stash"], "another output");
    const short = handle.slice(-64, -52);
    expect((await run(["fetch", short, "--lines", "299-300"])).out).toBe("row 299\nrow 300 ERROR timeout\n");
    expect((await run(["fetch", short.slice(0, 8).toUpperCase(), "--lines", "1"])).out).toBe("row 1\n");
    expect(JSON.parse((await run(["peek", short, "--json"])).out)).toMatchObject({ handle, meta: { lines: 500 } });
    const tooShort = await run(["fetch", short.slice(0, 7), "--json"]);
    expect(tooShort.code).toBe(4);
    expect(JSON.parse(tooShort.out).error.message).toContain("Expected at least 8 hex digits of a handle");
    const none = await run(["fetch", "00000000"]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("00000000 is not in agent `main`'s store");
  });

  it("a handle in another agent's store is named, with the agent to use", async () => {
    const handle = (await run(["stash", "--agent", "ops"], "ops only")).out.trim();
    const miss = await run(["fetch", handle]);
    expect(miss.code).toBe(2);
    expect(miss.err).toContain(
      `${handle} is not in agent \`main\`'s store (${artifactRoot(state, "main")}); it is in agent \`ops\`'s store`,
    );
    expect(miss.err).toContain(`next: context-ledger artifact fetch ${handle} --agent ops`);
    const short = handle.slice(-64, -52);
    const missShort = await run(["fetch", short]);
    expect(missShort.code).toBe(2);
    expect(missShort.err).toContain(`next: context-ledger artifact fetch ${short} --agent ops`);
  });

  it("peek hides a secret that only the agent's own redaction patterns match", async () => {
    const config = {
      plugins: {
        entries: {
          "context-ledger": { config: { agents: { ops: { redaction: { patterns: ["INTERNAL-[0-9]{6}"] } } } } },
        },
      },
    };
    await fsp.mkdir(path.join(tmp, "oc"), { recursive: true });
    await fsp.writeFile(path.join(tmp, "oc", "openclaw.json"), JSON.stringify(config));
    const text = "deploy ok\nticket INTERNAL-482913 opened\nkey sk-proj-abcdefghijklmnopqrstuvwx\n";
    const handle = (await run(["stash", "--agent", "ops"], text)).out.trim();
    const ops = JSON.parse((await run(["peek", handle, "--agent", "ops", "--json"])).out) as { preview: string };
    expect(ops.preview).not.toContain("INTERNAL-482913");
    expect(ops.preview).not.toContain("sk-proj-abcdefghijklmnopqrstuvwx");
    expect(ops.preview.split("[REDACTED]")).toHaveLength(3);
    const human = await run(["peek", handle, "--agent", "ops"]);
    expect(human.out).toContain("ticket [REDACTED] opened");
    // Another agent's settings, with the default rules only, leave the agent-specific pattern alone.
    await run(["stash"], text);
    const main = JSON.parse((await run(["peek", handle, "--json"])).out) as { preview: string };
    expect(main.preview).toContain("INTERNAL-482913");
  });

  it("peek --unverified shows a corrupt artifact's bytes, labelled; without it the hint says how", async () => {
    const handle = (await run(["stash"], "hello corrupt world")).out.trim();
    await fsp.writeFile(artifactPaths(artifactRoot(state, "main"), handle.slice(-64)).blob, "hello c0rrupt world");
    const refused = await run(["peek", handle]);
    expect(refused.code).toBe(3);
    expect(refused.err).toContain(`artifact peek ${handle} --unverified`);
    const look = await run(["peek", handle, "--unverified"]);
    expect(look.code).toBe(0);
    expect(look.out).toContain("UNVERIFIED");
    expect(look.out).toContain("hello c0rrupt world");
  });
});

describe("args", () => {
  it("parses flags, values, = forms and positionals; refuses unknown flags", () => {
    const spec = {
      json: { type: "boolean" as const },
      agent: { type: "string" as const },
      help: { type: "boolean" as const, short: "h" },
    };
    expect(parseArgv(["a", "--agent", "ops", "--json", "-", "--agent=x", "-h", "--", "--json"], spec)).toEqual({
      flags: { agent: "x", json: true, help: true },
      positionals: ["a", "-", "--json"],
    });
    expect(() => parseArgv(["--nope"], spec, "artifact fetch")).toThrow(
      "Unknown option `--nope` for `artifact fetch`; expected one of --json, --agent, --help",
    );
    expect(() => parseArgv(["--agent"], spec)).toThrow(/needs a value/);
    expect(() => parseArgv(["--json=1"], spec)).toThrow(/takes no value/);
  });

  it("parses durations and sizes", () => {
    expect(parseDuration("30d")).toBe(30 * 86_400_000);
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseSize("1G")).toBe(1024 ** 3);
    expect(parseSize("512MiB")).toBe(512 * 1024 ** 2);
    expect(parseSize("2048")).toBe(2048);
    expect(() => parseSize("lots")).toThrow(/like 500M/);
  });
});
