import { spawn } from "node:child_process";
import { closeSync, openSync, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTeeState } from "./tee-files.js";
import { fitsOneArgument, MAX_SHELL_ARG_BYTES, wrapCommand } from "./wrap-command.js";

const FILTER = path.join(import.meta.dirname, "tee-filter.ts");

interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr in arrival order, as exec shows them. */
  out: string;
  /** Every file the command left in its folder, with its mode and bytes. */
  files: Record<string, string>;
}

let root: string;
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-wrap-fidelity-"));
});
afterAll(async () => {
  await fsp.rm(root, { recursive: true, force: true });
});

async function snapshot(dir: string, base = dir): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    const rel = path.relative(base, p);
    const st = await fsp.lstat(p);
    if (e.isDirectory()) Object.assign(out, { [rel]: `dir ${(st.mode & 0o777).toString(8)}` }, await snapshot(p, base));
    else out[rel] = `${(st.mode & 0o777).toString(8)} ${(await fsp.readFile(p)).toString("latin1")}`;
  }
  return out;
}

/**
 * Runs `text` as the gateway does (`<shell> -c`) in a fresh folder at the case's own path each time, stdout and
 * stderr on one descriptor so their order is the order they were written in.
 */
async function run(shell: string, text: string, c: Case, teeFile?: string): Promise<Ran> {
  const { stdin } = c;
  const cwd = path.join(root, shell, String(CORPUS.indexOf(c)));
  await fsp.rm(cwd, { recursive: true, force: true });
  await fsp.mkdir(cwd, { recursive: true });
  const outFile = `${cwd}.out`;
  const fd = openSync(outFile, "w");
  try {
    const { status, signal, pid } = await new Promise<{
      status: number | null;
      signal: NodeJS.Signals | null;
      pid: number;
    }>((resolve, reject) => {
      const child = spawn(shell, ["-c", text], { cwd, stdio: [stdin === undefined ? "ignore" : "pipe", fd, fd] });
      if (stdin !== undefined) child.stdin?.end(stdin);
      child.on("error", reject);
      child.on("close", (s, sig) => resolve({ status: s, signal: sig, pid: child.pid ?? -1 }));
    });
    // The host reads its pipes to their end, which the filter holds until it has passed on every byte
    // and written its trailer; the shell's own end comes first.
    if (teeFile) await trailerWritten(teeFile);
    const norm = (text: string): string =>
      (c.pid ? text.replaceAll(String(pid), "<PID>") : text).replaceAll(c.childPid ?? /$^/g, "<CHILD>");
    const out = norm((await fsp.readFile(outFile)).toString("latin1"));
    const files = Object.fromEntries(Object.entries(await snapshot(cwd)).map(([k, v]) => [k, norm(v)]));
    return { status, signal, out, files };
  } finally {
    closeSync(fd);
  }
}

async function trailerWritten(teeFile: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await fsp.stat(`${teeFile}.json`).catch(() => undefined)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  // No trailer: the plumbing never ran (a syntax error on the command's first line stops the whole line).
}

interface Case {
  name: string;
  command: string;
  stdin?: string;
  /** The shell's own pid shows: written <PID> (the same shell either way, a different process each run). */
  pid?: boolean;
  /** A child's pid shows (a shell's notice of its death): written <CHILD>. */
  childPid?: RegExp;
}

/** Commands as models send them, and the ones that changed meaning under the first wrapper. */
const CORPUS: Case[] = [
  { name: "a plain echo", command: "echo hello" },
  { name: "printf with no final newline", command: "printf 'no newline'" },
  { name: "stdout and stderr interleaved", command: "for i in 1 2 3; do echo out$i; echo err$i >&2; done" },
  { name: "an exit code after output", command: "echo before; exit 3" },
  { name: "a failing last command", command: "echo x; false" },
  { name: "exit 255", command: "exit 255" },
  { name: "set -e stopping a script", command: "set -e; echo one; false; echo never" },
  { name: "set -u on an unset variable", command: "set -u; echo $NOPE_NOT_SET; echo after" },
  { name: "a cd chain", command: "mkdir -p a/b && cd a/b && echo made > f && pwd && cd ../.. && ls -R" },
  { name: "cd into a missing folder", command: "cd /no/such/dir && echo never; echo rc=$?" },
  { name: "&& and || chains", command: "true && echo yes || echo no; false && echo yes || echo no" },
  { name: "a subshell with its own exit", command: "(echo in; exit 4); echo rc=$?; (cd /; pwd); pwd" },
  { name: "a pipeline", command: "printf 'b\\na\\nb\\n' | sort | uniq -c" },
  { name: "a background job and wait", command: "(sleep 0.2; echo bg) & echo fg; wait; echo done $?" },
  { name: "wait with no jobs", command: "wait; echo waited $?" },
  { name: "jobs and $! with no jobs of its own", command: 'jobs; echo "[$!]"' },
  { name: "stdin read by cat", command: "cat", stdin: "line one\nline two\n" },
  { name: "stdin read line by line", command: 'while IFS= read -r l; do echo "[$l]"; done', stdin: "a\n b \nc" },
  { name: "stdin counted", command: "wc -c", stdin: "x".repeat(100_000) },
  { name: "NUL bytes and invalid UTF-8", command: "printf 'a\\000b\\377\\376c'" },
  { name: "a large output", command: "seq 1 200000" },
  { name: "a large output on stderr", command: "seq 1 50000 >&2; echo end" },
  { name: "a 10,000-char line", command: `printf '%s\\n' ${"y".repeat(10_000)}` },
  { name: "unicode", command: "echo 'héllo 漢字 🙂'; printf '%s\\n' ñ" },
  { name: "exec >file", command: "exec >redirected.txt; echo hidden; echo shown >&2" },
  { name: "exec 2>/dev/null", command: "exec 2>/dev/null; echo out; echo err >&2; ls /nope" },
  { name: "exec replacing the shell", command: "echo first; exec sh -c 'echo second; exit 5'" },
  { name: "kill $$ ending the script", command: "kill $$; echo ran-after-kill > marker; echo after" },
  { name: "check || kill $$; deploy", command: "false || kill $$; echo deployed > deployed" },
  { name: "kill -9 $$", command: "echo partial; kill -9 $$; echo after" },
  { name: "a command killed by a signal", command: "sh -c 'echo partial; kill -TERM $$'" },
  { name: "a child killed by SEGV", command: "sh -c 'kill -SEGV $$'; echo rc=$?", childPid: /\d+(?= Segmentation)/g },
  { name: "an EXIT trap", command: "trap 'echo bye' EXIT; echo hi" },
  { name: "an EXIT trap and exit 4", command: "trap 'echo cleanup > trapped' EXIT; exit 4" },
  { name: "a TERM trap and kill $$", command: "trap 'echo caught; exit 7' TERM; kill $$; echo after" },
  { name: "$$ and $PPID", command: 'echo "pid $$"; echo "$$" > pidfile; sh -c "echo parent \\$PPID"', pid: true },
  { name: "$0 and $LINENO", command: 'echo "$0"\necho "line $LINENO"' },
  { name: "a terminated here-doc", command: "cat <<EOF\nline one\n$HOME-free text\nEOF\necho after" },
  { name: "an unterminated here-doc", command: "cat <<EOF\nline one\nline two" },
  { name: "an unterminated quoted here-doc", command: "cat <<'EOF'\nkeep $this\n" },
  { name: "a tab-stripping here-doc", command: "cat <<-EOF\n\tindented\n\tEOF\necho done" },
  { name: "a trailing backslash", command: "echo hi \\" },
  { name: "a line continuation", command: "echo a \\\n  b \\\n  c" },
  { name: "a trailing comment", command: "echo x # a comment" },
  { name: "a leading comment line", command: "# set things up\necho y" },
  { name: "a syntax error on the first line", command: "echo 'unterminated" },
  { name: "a syntax error on a later line", command: "echo ok\nif then fi" },
  { name: "a command not found", command: "no_such_command_xyz; echo rc=$?" },
  { name: "a function", command: 'f() { echo "in f $1"; return 3; }; f arg; echo rc=$?' },
  { name: "export and env", command: "export CL_X=1; env | grep '^CL_X='" },
  { name: "files made with modes", command: "umask 077; echo data > f1 && chmod 640 f1 && mkdir d && cat f1" },
  { name: "a short sleep", command: "sleep 0.1; echo slept" },
  { name: "command substitution", command: 'v=$(printf "x%.0s" 1 2 3); echo "[$v]"' },
  { name: "shell flags", command: 'echo "$-"' },
  { name: "return outside a function", command: "return 2; echo after" },
  { name: "stdout not a terminal", command: "[ -t 1 ] && echo tty || echo notty" },
];

describe.each(["bash", "dash"])("the wrapped command means what it means plain (%s)", (shell) => {
  it.concurrent.each(CORPUS)("$name", async (c) => {
    const { command } = c;
    const plain = await run(shell, command, c);
    const teeDir = await fsp.mkdtemp(path.join(root, "tee-"));
    const teeFile = path.join(teeDir, `${crypto.randomUUID()}.out`);
    await fsp.writeFile(teeFile, "", { mode: 0o600 });
    const text = wrapCommand({ command, teeFile, nodePath: process.execPath, filterPath: FILTER, capBytes: 1 << 26 });
    const via = await run(shell, text, c, teeFile);
    expect(via).toEqual(plain);
    // The tee file holds every byte the shell wrote once the plumbing ran: all of it but what the shell says
    // while it parses the first line (bash's warning about an unterminated here-doc).
    const state = await readTeeState(teeFile);
    if (state.kind === "ended") {
      const teed = (await fsp.readFile(teeFile)).toString("latin1");
      if (!c.pid && !c.childPid) expect(via.out.endsWith(teed)).toBe(true);
    }
    await fsp.rm(teeFile, { force: true });
    await fsp.rm(`${teeFile}.json`, { force: true });
    expect(await fsp.readdir(teeDir)).toEqual([]);
  });
});

describe("commands too long to wrap", () => {
  it("a command near the one-argument limit does not fit once wrapped, a shorter one does", () => {
    const wrap = (command: string): string =>
      wrapCommand({
        command,
        teeFile: `/home/user/.openclaw/context-ledger/exec-tee/${crypto.randomUUID()}.out`,
        nodePath: "/usr/local/bin/node",
        filterPath: "/home/user/.openclaw/extensions/context-ledger/dist/capture/full-exec/tee-filter.js",
        capBytes: 268_435_456,
      });
    const longest = MAX_SHELL_ARG_BYTES - 1;
    expect(fitsOneArgument("x".repeat(longest))).toBe(true);
    expect(fitsOneArgument(wrap("x".repeat(longest - 100)))).toBe(false);
    expect(fitsOneArgument(wrap("x".repeat(120_000)))).toBe(true);
    expect(MAX_SHELL_ARG_BYTES).toBe(131_072);
  });
});
