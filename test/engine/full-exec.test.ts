import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestEngine } from "../support/engine-harness.js";
import { countLines } from "../../src/artifacts/index.js";
import { MAX_ARG_STRLEN } from "../../src/host/exec-argument.js";
import { execPolicyVerdict } from "../../src/host/exec-policy.js";
import { HOST_LINES } from "../../src/host/host-lines.js";
import { captureToolCall, pendingCapturesOf } from "../../src/capture/capture-hook.js";
import { captureSessionOf, createCaptureIndex } from "../../src/capture/capture-index.js";
import { createLedgerTools } from "../../src/retrieval/tools.js";
import { storedOutputOfCall } from "../../src/capture/full-exec/call-output.js";
import { storeTeedCall, wrapForFullCapture } from "../../src/capture/full-exec/full-exec-hook.js";
import { stashTeeOutput } from "../../src/capture/full-exec/stash-tee.js";
import { createTeeFile, readTeeState, sweepTeeFiles } from "../../src/capture/full-exec/tee-files.js";
import { teeRegistryOf } from "../../src/capture/full-exec/tee-registry.js";
import { resolveFilterLauncher } from "../../src/capture/full-exec/filter-launcher.js";
import { wrapCommand, type FilterLauncher } from "../../src/capture/full-exec/wrap-command.js";

async function launcherOrThrow(): Promise<FilterLauncher> {
  const found = await resolveFilterLauncher();
  if (!found.ok) throw new Error(`no filter launcher on this machine: ${found.reason}`);
  return found.launcher;
}

interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  out: Buffer;
}

/** Runs `command` as the gateway does (`<shell> -c`), stdout and stderr read as exec reads them (merged). */
function run(shell: string, command: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, out: Buffer.concat(chunks) }));
  });
}

const sha = (b: Buffer | string): string => createHash("sha256").update(b).digest("hex");

let dir: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-tee-"));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

async function wrapped(command: string, capBytes = 64 * 1024 * 1024): Promise<{ file: string; text: string }> {
  const file = await createTeeFile(dir);
  return {
    file,
    text: wrapCommand({ ...(await launcherOrThrow()), command, teeFile: file, capBytes }),
  };
}

describe("the full-exec wrapper", () => {
  const cases: Array<{ name: string; command: string }> = [
    { name: "stdout and stderr", command: "echo out; echo err >&2; echo out2" },
    { name: "an exit code", command: "echo before; exit 3" },
    { name: "a heredoc and a trailing comment", command: "cat <<EOF\nline one\nEOF\ntrue # done" },
    { name: "NUL bytes and invalid UTF-8", command: "printf 'a\\000b\\377\\376c'" },
    { name: "quotes in the command", command: `printf '%s\\n' "it's" 'say "hi"'` },
  ];
  for (const shell of ["bash", "dash"]) {
    for (const c of cases) {
      it(`${shell}: keeps the output and status of ${c.name}, and tees every byte`, async () => {
        const plain = await run(shell, c.command);
        const { file, text } = await wrapped(c.command);
        const via = await run(shell, text);
        expect({ status: via.status, signal: via.signal }).toEqual({ status: plain.status, signal: plain.signal });
        // stderr and stdout interleave in arrival order either way: compare as sets of bytes where they may differ.
        expect(via.out.toString("latin1").split("\n").sort()).toEqual(plain.out.toString("latin1").split("\n").sort());
        expect(sha(await fsp.readFile(file))).toBe(sha(via.out));
        expect(await readTeeState(file)).toEqual({ kind: "ended", bytes: via.out.length, kept: via.out.length });
      });
    }
  }

  for (const signal of ["TERM", "KILL", "SEGV"]) {
    it(`bash: a command killed by SIG${signal} still ends the call by that signal, with no extra notice`, async () => {
      // The hosts run `bash -c`, which execs a lone command: the signal reaches the host as such.
      const command = `sh -c 'echo partial; kill -${signal} $$'`;
      const plain = await run("bash", command);
      const via = await run("bash", (await wrapped(command)).text);
      expect(plain).toMatchObject({ status: null, signal: `SIG${signal}` });
      expect(via).toMatchObject({ status: null, signal: `SIG${signal}` });
      expect(via.out.toString()).toBe(plain.out.toString());
    });
  }

  it("passes a 20 MB output through whole and tees it byte-exact", async () => {
    const script = `for (let i = 1; i <= 320000; i++) process.stdout.write("line " + i + " " + "x".repeat(50) + "\\n")`;
    const command = `'${process.execPath}' -e '${script}'`;
    const { file, text } = await wrapped(command);
    const via = await run("bash", text);
    expect(via.status).toBe(0);
    expect(via.out.length).toBeGreaterThan(20_000_000);
    const teed = await fsp.readFile(file);
    expect(teed.length).toBe(via.out.length);
    expect(sha(teed)).toBe(sha(via.out));
    expect(via.out.toString("utf8").split("\n")[319_999]).toBe(`line 320000 ${"x".repeat(50)}`);
  });

  it("keeps the first capBytes in the file and still passes everything on", async () => {
    const { file, text } = await wrapped(`head -c 3000000 /dev/zero | tr '\\000' 'a'`, 1_048_576);
    const via = await run("bash", text);
    expect(via.out.length).toBe(3_000_000);
    expect((await fsp.stat(file)).size).toBe(1_048_576);
    expect(await readTeeState(file)).toEqual({ kind: "ended", bytes: 3_000_000, kept: 1_048_576 });
  });
});

describe("storing a tee file", () => {
  it("stores the bytes as written, says when the cap bit, and removes the file", async () => {
    const t = await createTestEngine();
    const store = t.services.store("main");
    const { file, text } = await wrapped(`head -c 3000000 /dev/zero | tr '\\000' 'a'; printf '\\377'`, 1_048_576);
    await run("bash", text);
    const got = await stashTeeOutput(file, {
      store,
      origin: { toolName: "exec", toolCallId: "c1", agentId: "main", sessionKey: "s" },
      oversized: () => true,
      oversizedBytes: 32_000,
    });
    expect(got?.partial).toBe("the first 1.0 MiB of 2.9 MiB (the capture cap, offload.maxCaptureBytes)");
    expect((await store.read(got?.handle ?? "")).equals(Buffer.alloc(1_048_576, "a"))).toBe(true);
    await expect(fsp.stat(file)).rejects.toThrow(/ENOENT/);

    const bin = await wrapped(`head -c 100000 /dev/zero; printf '\\377'`);
    const ran = await run("bash", bin.text);
    const stored = await stashTeeOutput(bin.file, {
      store,
      origin: { toolName: "exec", toolCallId: "c2", agentId: "main", sessionKey: "s" },
      oversized: () => true,
      oversizedBytes: 32_000,
    });
    expect(stored?.binary).toBe("contains NUL bytes");
    expect((await store.read(stored?.handle ?? "")).equals(ran.out)).toBe(true);
  });

  it("counts chars as the host does (UTF-16 units) and lines as countLines, across read pieces", async () => {
    const t = await createTestEngine();
    // 2-, 3- and 4-byte sequences, so some fall across the 64 KiB pieces the scan reads.
    const text = Array.from({ length: 9_000 }, (_, i) => `row ${i} é 漢字 🙂 ${"x".repeat(i % 13)}`).join("\n");
    const source = path.join(dir, "mixed.txt");
    await fsp.writeFile(source, text);
    const { file, text: command } = await wrapped(`cat '${source}'`);
    await run("bash", command);
    const got = await stashTeeOutput(file, {
      store: t.services.store("main"),
      origin: { toolName: "exec", toolCallId: "c4", agentId: "main", sessionKey: "s" },
      oversized: () => true,
      oversizedBytes: 32_000,
    });
    expect(got).toMatchObject({ chars: text.length, lines: countLines(text), bytes: Buffer.byteLength(text) });
    expect(got?.binary).toBeUndefined();
  });

  it("leaves an output that has not ended (a background command) to the host", async () => {
    const t = await createTestEngine();
    const file = await createTeeFile(dir);
    await fsp.writeFile(file, "x".repeat(100_000));
    const got = await stashTeeOutput(file, {
      store: t.services.store("main"),
      origin: { toolName: "exec", toolCallId: "c3", agentId: "main", sessionKey: "s" },
      oversized: () => true,
      oversizedBytes: 32_000,
    });
    expect(got).toBeUndefined();
    await expect(fsp.stat(file)).rejects.toThrow(/ENOENT/);
  });

  it("refuses a tee file that is not the private file it made", async () => {
    const file = await createTeeFile(dir);
    await fsp.chmod(file, 0o644);
    expect(await readTeeState(file)).toEqual({ kind: "unusable", reason: "the tee file is no longer private (0600)" });
    const link = await createTeeFile(dir);
    await fsp.rm(link);
    await fsp.symlink("/etc/hostname", link);
    expect((await readTeeState(link)).kind).toBe("unusable");
  });

  it("reads a stream that ends while its state is read as unfinished, then as ended, never as unusable", async () => {
    const file = await createTeeFile(dir);
    await fsp.writeFile(file, "first part\n");
    const lstat = fsp.lstat.bind(fsp);
    // The filter writes its last bytes and its trailer just after the file is looked at.
    const spy = vi.spyOn(fsp, "lstat").mockImplementationOnce(async (p, opts) => {
      const st = await lstat(p as string, opts as undefined);
      await fsp.appendFile(file, "last part\n");
      await fsp.writeFile(`${file}.json`, JSON.stringify({ v: 1, bytes: 21, kept: 21, fileOk: true }));
      return st;
    });
    try {
      expect(await readTeeState(file)).toEqual({ kind: "unfinished", kept: 11 });
      expect(await readTeeState(file)).toEqual({ kind: "ended", bytes: 21, kept: 21 });
    } finally {
      spy.mockRestore();
    }
  });

  it("sweeps old tee files whose call never reported back, and keeps live ones", async () => {
    const old = await createTeeFile(dir);
    const live = await createTeeFile(dir);
    const past = new Date(Date.now() - 7 * 3600 * 1000);
    await Promise.all([old, live].map((f) => fsp.utimes(f, past, past)));
    expect(await sweepTeeFiles(dir, new Set([live]), 6 * 3600 * 1000)).toBe(1);
    expect((await fsp.readdir(dir)).sort()).toEqual([path.basename(live)]);
  });
});

describe("sweeping the tee folder", () => {
  it("removes a trailer written after its tee file was taken, and every other companion left alone", async () => {
    const orphans = ["a", "b", "c"].map((c) => path.join(dir, `${c.repeat(8)}-0000-4000-8000-000000000000.out`));
    await fsp.writeFile(`${orphans[0]}.json`, "{}");
    await fsp.writeFile(`${orphans[1]}.fifo`, "");
    await fsp.writeFile(`${orphans[2]}.json.tmp`, "{}");
    await fsp.writeFile(path.join(dir, "unrelated.txt"), "not ours");
    const past = new Date(Date.now() - 7 * 3600 * 1000);
    for (const f of await fsp.readdir(dir)) await fsp.utimes(path.join(dir, f), past, past);
    expect(await sweepTeeFiles(dir, new Set(), 6 * 3600 * 1000)).toBe(3);
    expect(await fsp.readdir(dir)).toEqual(["unrelated.txt"]);
  });
  it("a filter whose shell died before the FIFO opened stays in the group the host kills", async () => {
    const { file, text } = await wrapped("echo never");
    // The shell killed between starting the filter and opening the FIFO: the filter waits for a writer.
    const died = text.replace(/exec >'[^']*' 2>&1; /, "kill -9 $$$$; ");
    expect(died).not.toBe(text);
    const child = spawn("bash", ["-c", died], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_s, sig) => resolve(sig)));
    const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
    expect(await exited).toBe("SIGKILL");
    const waiting = async (): Promise<string[]> => {
      const found: string[] = [];
      for (const pid of await fsp.readdir("/proc")) {
        const stat = await fsp.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (state !== "Z" && pgrp === String(child.pid)) found.push(pid);
      }
      return found;
    };
    // It holds the host's pipes, in the shell's group: the host's group kill on stopping the call ends it.
    expect((await waiting()).length).toBe(1);
    process.kill(-(child.pid ?? 0), "SIGTERM");
    await closed;
    for (let i = 0; i < 100 && (await waiting()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await waiting()).toEqual([]);
    await fsp.rm(`${file}.fifo`, { force: true });
    await fsp.rm(`${file}.ready`, { force: true });
  });

  it("keeps a call's files while its newest file is young, whichever it is", async () => {
    const file = await createTeeFile(dir);
    const past = new Date(Date.now() - 7 * 3600 * 1000);
    await fsp.utimes(file, past, past);
    await fsp.writeFile(`${file}.json`, "{}");
    expect(await sweepTeeFiles(dir, new Set(), 6 * 3600 * 1000)).toBe(0);
    expect((await fsp.readdir(dir)).sort()).toEqual([path.basename(file), `${path.basename(file)}.json`].sort());
  });
});

describe("which exec calls are wrapped", () => {
  const base = { toolName: "exec", params: { command: "ls" }, config: {}, agentId: "main", platform: "linux" as const };
  it("wraps a plain gateway call with the hosts' defaults", () => {
    expect(execPolicyVerdict(base)).toEqual({ wrap: true, command: "ls" });
    expect(execPolicyVerdict({ ...base, config: { tools: { exec: { host: "gateway" } } } }).wrap).toBe(true);
    for (const command of ["make && make test", "cmd 2>&1 | tail", "cmd &> log", "cmd |& tee x", "a >&2"])
      expect(execPolicyVerdict({ ...base, params: { command } }).wrap, command).toBe(true);
  });
  it.each([
    [{ ...base, toolName: "read" }, "not exec"],
    [{ ...base, platform: "win32" as const }, "Windows shell"],
    [{ ...base, toolKind: "code_mode_exec" }, "tool kind code_mode_exec"],
    [{ ...base, params: { cmd: "ls" } }, "Codex-native call (cmd)"],
    [{ ...base, params: { command: "top", pty: true } }, "pty"],
    [{ ...base, params: { command: "srv", background: true } }, "background"],
    [{ ...base, params: { command: "srv", yieldMs: 1000 } }, "background"],
    [{ ...base, params: { command: "ls", host: "node" } }, "exec host node"],
    [{ ...base, params: { command: "server --port 1 & sleep 1" } }, "starts a background process"],
    [{ ...base, params: { command: "nohup server" } }, "starts a background process"],
    [{ ...base, config: { agents: { defaults: { sandbox: { mode: "all" } } } } }, "sandbox mode all"],
    [
      { ...base, config: { agents: { list: [{ id: "main", sandbox: { mode: "non-main" } }] } } },
      "sandbox mode non-main",
    ],
    [{ ...base, config: { tools: { exec: { ask: "on-miss" } } } }, "approvals (security full, ask on-miss)"],
    [
      { ...base, config: { agents: { list: [{ id: "main", tools: { exec: { security: "allowlist" } } }] } } },
      "approvals (security allowlist, ask off)",
    ],
  ])("leaves %#: %s", (options, reason) => {
    expect(execPolicyVerdict(options)).toEqual({ wrap: false, reason });
  });
});

describe("the before_tool_call wrapper and the capture, together", () => {
  it("stores the whole output of a wrapped call and links it to the host's tail copy", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:s1", sessionId: "sid-1", toolCallId: "call_a1" };
    const command = `for i in $(seq 1 20000); do echo "row $i ${"y".repeat(40)}"; done`;
    const hooked = await wrapForFullCapture(
      t.services,
      { config: {}, trackPending: true },
      { toolName: "exec", toolCallId: "call_a1", params: { command, timeout: 30 } },
      ctx,
    );
    expect(hooked?.params.timeout).toBe(30);
    // The user's command comes last, verbatim, after one line's worth of plumbing.
    expect(String(hooked?.params.command).endsWith(`; fi; ${command}`)).toBe(true);
    const via = await run("bash", String(hooked?.params.command));
    // Engine calls of the session wait for the stored output from the moment the call was wrapped.
    const scope = { sessionKey: ctx.sessionKey, sessionId: ctx.sessionId };
    expect(await pendingCapturesOf(t.services).settle(scope, 20)).toBe(1);
    const output = via.out.toString("utf8");
    expect(output.length).toBeGreaterThan(900_000);
    // What exec hands after_tool_call: its kept tail, the final newline trimmed.
    const kept = output.slice(-200_000).trimEnd();
    const index = createCaptureIndex(t.services.root, "main");
    const result = { content: [{ type: "text", text: kept }], details: { aggregated: kept } };
    // The two after_tool_call handlers: the host's copy (registerCapture) and the teed whole (registerFullExec).
    await captureToolCall(
      t.services,
      () => index,
      { toolCallId: "call_a1", toolName: "exec", result, source: "after-tool-call" },
      ctx,
    );
    await storeTeedCall(t.services, { toolCallId: "call_a1", toolName: "exec", result }, ctx);
    const found = createCaptureIndex(t.services.root, "main").resolve({
      hostId: "call_a1",
      hostText: kept,
      session: { sessionKey: ctx.sessionKey, sessionId: ctx.sessionId },
    });
    expect(found?.source).toBe("exec-tee");
    expect(found?.chars).toBe(output.length);
    expect(found?.lines).toBe(20_000);
    expect(found?.partial).toBeUndefined();
    expect((await t.services.store("main").read(found?.handle ?? "")).equals(via.out)).toBe(true);
    expect(teeRegistryOf(t.services).files().size).toBe(0);
    expect(await pendingCapturesOf(t.services).settle(scope, 20)).toBe(0);
    expect(await fsp.readdir(path.join(t.services.root, "exec-tee"))).toEqual([]);
  });

  it("removes the tee file of a call that gave no result", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:s2", toolCallId: "call_c1" };
    const hooked = await wrapForFullCapture(
      t.services,
      { config: {}, trackPending: true },
      { toolName: "exec", toolCallId: "call_c1", params: { command: "true" } },
      ctx,
    );
    expect(hooked).toBeDefined();
    expect(await fsp.readdir(path.join(t.services.root, "exec-tee"))).toHaveLength(1);
    await storeTeedCall(t.services, { toolCallId: "call_c1", toolName: "exec" }, ctx);
    expect(await fsp.readdir(path.join(t.services.root, "exec-tee"))).toEqual([]);
    expect(await pendingCapturesOf(t.services).settle({ sessionKey: ctx.sessionKey }, 20)).toBe(0);
  });

  it("runs a command too long to wrap unwrapped, says why, and leaves no file behind", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:s3", toolCallId: "call_long" };
    // 130,600 chars run plain; wrapped they passed Linux's 131,072-byte limit of one argument (E2BIG).
    const command = `echo ${"x".repeat(130_595)}`;
    const hooked = await wrapForFullCapture(
      t.services,
      { config: {}, trackPending: true },
      { toolName: "exec", toolCallId: "call_long", params: { command } },
      ctx,
    );
    expect(hooked).toBeUndefined();
    expect(t.logs.some((l) => l.includes("call_long runs unwrapped") && l.includes("131072-byte"))).toBe(true);
    expect(await fsp.readdir(path.join(t.services.root, "exec-tee"))).toEqual([]);
    expect(await pendingCapturesOf(t.services).settle({ sessionKey: ctx.sessionKey }, 20)).toBe(0);
  });

  it("counts the host's eval quoting: a quote-heavy command wraps while the host can start it, else runs as written", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const host = { config: {}, trackPending: false, execArgument: HOST_LINES["2026.9"].execArgument };
    const hook = (toolCallId: string, command: string) =>
      wrapForFullCapture(
        t.services,
        host,
        { toolName: "exec", toolCallId, params: { command } },
        { agentId: "main", sessionKey: "agent:main:s4", toolCallId },
      );
    // 34 KB with 16,000 quotes: 82 KB once 2026.9.6 writes it as `eval '…'`, wrapped or not.
    const quoted = `printf %s ${"''".repeat(8_000)} ${"x".repeat(18_000)} | wc -c`;
    const wrapped = await hook("call_q1", quoted);
    expect(wrapped).toBeDefined();
    const asHost = (command: string): string => `eval '${command.replaceAll("'", `'\\''`)}'`;
    expect(Buffer.byteLength(asHost(String(wrapped?.params.command)))).toBeLessThan(MAX_ARG_STRLEN);
    // As many quotes and a tail that leave the plain argument 300 bytes under the limit: wrapped it would not start.
    const head = `: ${"''".repeat(8_000)} `;
    const near = `${head}${"x".repeat(MAX_ARG_STRLEN - 300 - Buffer.byteLength(asHost(head)))}`;
    expect(Buffer.byteLength(asHost(near))).toBeLessThan(MAX_ARG_STRLEN);
    expect(await hook("call_q2", near)).toBeUndefined();
    expect(spawnSync("bash", ["-c", asHost(near)]).status).toBe(0);
  });

  /** Starts a wrapped command in a process group of its own, as the host runs exec; its output drained. */
  function startGroup(command: string): { done: Promise<Ran>; pid: number } {
    const child = spawn("bash", ["-c", command], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    const done = new Promise<Ran>((resolve) =>
      child.on("close", (status, signal) => resolve({ status, signal, out: Buffer.concat(chunks) })),
    );
    return { done, pid: child.pid as number };
  }

  /** The capture records of one call, however many the index holds. */
  async function recordsOf(root: string, toolCallId: string): Promise<Array<{ handle: string; source: string }>> {
    const found: Array<{ handle: string; source: string }> = [];
    const walk = async (d: string): Promise<void> => {
      for (const e of await fsp.readdir(d, { withFileTypes: true }).catch(() => [])) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) await walk(p);
        else if (e.name.startsWith(`${toolCallId}.`) && p.includes(`${path.sep}captures${path.sep}`))
          found.push(JSON.parse(await fsp.readFile(p, "utf8")) as { handle: string; source: string });
      }
    };
    await walk(root);
    return found;
  }

  async function until<T>(what: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      const got = await what();
      if (got !== undefined) return got;
    }
    return undefined;
  }

  it("stores the whole output of a call the host sent to the background, once its command ends", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:bg1", toolCallId: "call_bg1" };
    // About 5 MB over about 3 s: the host's copy at backgrounding time is a "still running" note.
    const command = `for i in $(seq 1 30); do head -c 174763 /dev/zero | tr '\\000' 'a'; echo " $i"; sleep 0.1; done`;
    const hooked = await wrapForFullCapture(
      t.services,
      { config: {}, trackPending: true },
      { toolName: "exec", toolCallId: "call_bg1", params: { command } },
      ctx,
    );
    const running = startGroup(String(hooked?.params.command));
    await new Promise((r) => setTimeout(r, 500));
    const result = { content: [{ type: "text", text: "Command still running (session abc12345, pid 1)." }] };
    await storeTeedCall(t.services, { toolCallId: "call_bg1", toolName: "exec", result }, ctx);
    const teeDir = path.join(t.services.root, "exec-tee");
    expect((await fsp.readdir(teeDir)).length, "the file stays while the command runs").toBeGreaterThan(0);
    // The engine does not wait on a command the host sent to the background.
    expect(await pendingCapturesOf(t.services).settle({ sessionKey: ctx.sessionKey }, 20)).toBe(0);
    const ran = await running.done;
    expect(ran.out.length).toBeGreaterThan(5_000_000);
    const records = await until(async () => {
      const r = await recordsOf(t.services.root, "call_bg1");
      return r.length > 0 ? r : undefined;
    }, 30_000);
    expect(records?.map((r) => r.source)).toEqual(["exec-tee"]);
    expect((await t.services.store("main").read(records?.[0]?.handle ?? "")).equals(ran.out)).toBe(true);
    expect(await until(async () => ((await fsp.readdir(teeDir)).length === 0 ? true : undefined), 5_000)).toBe(true);
  });

  it("leaves no file behind of background calls killed by the host, after the sweep", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const teeDir = path.join(t.services.root, "exec-tee");
    const calls = ["SIGTERM", "SIGKILL", "SIGTERM", "SIGKILL"].map((signal, i) => ({
      signal: signal as NodeJS.Signals,
      ctx: { agentId: "main", sessionKey: "agent:main:bg2", toolCallId: `call_kill${i}` },
    }));
    const started = await Promise.all(
      calls.map(async ({ ctx }) => {
        const hooked = await wrapForFullCapture(
          t.services,
          { config: {}, trackPending: true },
          // A 1 s timeout: a command whose end never comes is given up 2 s after it started.
          {
            toolName: "exec",
            toolCallId: ctx.toolCallId,
            params: { command: "echo started; sleep 30; echo never", timeout: 1 },
          },
          ctx,
        );
        return startGroup(String(hooked?.params.command));
      }),
    );
    await new Promise((r) => setTimeout(r, 400));
    const result = { content: [{ type: "text", text: "Command still running." }] };
    for (const { ctx } of calls)
      await storeTeedCall(t.services, { toolCallId: ctx.toolCallId, toolName: "exec", result }, ctx);
    for (const [i, { signal }] of calls.entries()) process.kill(-(started[i] as { pid: number }).pid, signal);
    await Promise.all(started.map((s) => s.done));
    // Killed by SIGTERM: the stream ends and the filter writes its trailer; by SIGKILL: the filter dies with
    // the command, no trailer, and the file goes when the call's time is up.
    await until(async () => ((await fsp.readdir(teeDir)).length === 0 ? true : undefined), 10_000);
    await sweepTeeFiles(teeDir, teeRegistryOf(t.services).files(), 0);
    expect(await fsp.readdir(teeDir)).toEqual([]);
  });

  it("lets the model fetch a wrapped call's whole output by the call's id before the host reports the call", async () => {
    const t = await createTestEngine({ offload: { fullExecOutput: true } });
    const ctx = { agentId: "main", sessionKey: "agent:main:byid", toolCallId: "call_byid" };
    const command = `for i in $(seq 1 17000); do echo "line $i ${"z".repeat(50)}"; done`;
    const hooked = await wrapForFullCapture(
      t.services,
      { config: {}, trackPending: true },
      { toolName: "exec", toolCallId: "call_byid", params: { command } },
      ctx,
    );
    const via = await run("bash", String(hooked?.params.command));
    // No after_tool_call yet (2026.9.6 sends it after the turn): the fetch stores the tee file itself.
    const [fetchTool] = createLedgerTools(
      {
        openStore: (agentId) => t.services.store(agentId),
        readableAgents: () => [],
        outputOfCall: (agentId, context, id) =>
          storedOutputOfCall(t.services, agentId, { session: captureSessionOf(context), toolCallId: id }),
      },
      { agentId: "main", sessionKey: ctx.sessionKey },
    );
    const got = await fetchTool!.execute("call_f1", { toolCallId: "call_byid", lines: "16991-17000" });
    expect(got.details.error).toBeUndefined();
    const lines = via.out.toString("utf8").trimEnd().split("\n");
    expect(got.content[0]?.text.split("\n").slice(1)).toEqual(lines.slice(-10));
    // The same again, now from the capture the first fetch recorded; the tee folder is empty.
    const again = await fetchTool!.execute("call_f2", { toolCallId: "call_byid", lines: "1-2" });
    expect(again.content[0]?.text.split("\n").slice(1)).toEqual(lines.slice(0, 2));
    expect(await fsp.readdir(path.join(t.services.root, "exec-tee"))).toEqual([]);
    // Another session does not reach it.
    const [other] = createLedgerTools(
      {
        openStore: (agentId) => t.services.store(agentId),
        readableAgents: () => [],
        outputOfCall: (agentId, context, id) =>
          storedOutputOfCall(t.services, agentId, { session: captureSessionOf(context), toolCallId: id }),
      },
      { agentId: "main", sessionKey: "agent:main:other" },
    );
    const refused = await other!.execute("call_f3", { toolCallId: "call_byid", lines: "1-2" });
    expect(refused.details.error).toMatchObject({ code: "artifact_not_found" });
  });

  it("leaves every call alone when the opt-in is off", async () => {
    const t = await createTestEngine();
    const ctx = { agentId: "main", sessionKey: "agent:main:s1", toolCallId: "call_b1" };
    expect(
      await wrapForFullCapture(
        t.services,
        { config: {}, trackPending: true },
        { toolName: "exec", params: { command: "ls" } },
        ctx,
      ),
    ).toBeUndefined();
  });
});
