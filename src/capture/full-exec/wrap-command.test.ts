import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveFilterLauncher } from "./filter-launcher.js";
import { readTeeState } from "./tee-files.js";
import { wrapCommand, type FilterLauncher } from "./wrap-command.js";

interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr in arrival order, as exec shows them. */
  out: string;
  /** Every file the command left in its folder, with its mode and bytes. */
  files: Record<string, string>;
  /** The bytes as written, before the pids are replaced. */
  raw?: Buffer;
}

let root: string;
let launcher: FilterLauncher;
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-wrap-fidelity-"));
  // The start of every shell snapshot the hosts write (`buildSnapshotFile`), and an alias as one may hold.
  await fsp.writeFile(
    path.join(root, "snapshot.sh"),
    [
      "# OpenClaw exec shell snapshot. Generated; do not edit.",
      'if [ -n "${BASH_VERSION:-}" ]; then shopt -s expand_aliases 2>/dev/null || true; fi',
      "unalias -a 2>/dev/null || true",
      "alias ll='ls -l'",
      "",
    ].join("\n"),
  );
  const found = await resolveFilterLauncher();
  if (!found.ok) throw new Error(`no filter launcher on this machine: ${found.reason}`);
  launcher = found.launcher;
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

/** How a host line hands a command to its shell. */
interface Framing {
  name: string;
  shell: "bash" | "dash";
  /** The shell's `-c` argument for a command. */
  frame: (command: string) => string;
}

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** The command as the `-c` argument itself (2026.4.24 and 2026.5.28 with no `pathPrepend`; dash on every line). */
const AS_ARGUMENT: Framing[] = (["bash", "dash"] as const).map((shell) => ({
  name: `${shell} -c`,
  shell,
  frame: (command) => command,
}));

/** bash on 2026.6.11 on: the shell snapshot sourced, then the command in an `eval` (`buildSnapshotWrappedCommand`). */
const IN_HOST_EVAL: Framing = {
  name: "bash -c, in the host's eval after its snapshot",
  shell: "bash",
  frame: (command) => {
    const snapshot = shellQuote(path.join(root, "snapshot.sh"));
    return `if [ -r ${snapshot} ]; then . ${snapshot}; fi\neval ${shellQuote(command)}`;
  },
};

/**
 * Runs `text` as the gateway does (`<shell> -c` of the framed text, the shell leading a process group and session
 * of its own) in a fresh folder at the case's own path each time, stdout and stderr on one descriptor so their
 * order is the order they were written in. A case's `groupSignal` is sent to the shell's group as the host stops a
 * call, once the command printed `start` and `afterMs` more passed.
 */
async function run(framing: Framing, text: string, c: Case, teeFile?: string): Promise<Ran> {
  const { stdin } = c;
  const { shell } = framing;
  const cwd = path.join(root, framing.name.replace(/\W+/g, "-"), String(CORPUS.indexOf(c)));
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
      const child = spawn(shell, ["-c", framing.frame(text)], {
        cwd,
        detached: true,
        stdio: [stdin === undefined ? "ignore" : "pipe", fd, fd],
      });
      if (stdin !== undefined) child.stdin?.end(stdin);
      child.on("error", reject);
      child.on("close", (s, sig) => resolve({ status: s, signal: sig, pid: child.pid ?? -1 }));
      if (c.groupSignal) void signalGroupAfterStart(child.pid ?? 0, outFile, c.groupSignal);
    });
    // The host reads its pipes to their end, which the filter holds until it has passed on every byte
    // and written its trailer; the shell's own end comes first.
    if (teeFile && !c.firstLine?.[shell]?.beforePlumbing) await trailerWritten(teeFile);
    const norm = (text: string): string =>
      (c.pid ? text.replaceAll(String(pid), "<PID>") : text).replaceAll(c.childPid ?? /$^/g, "<CHILD>");
    const raw = await fsp.readFile(outFile);
    const out = norm(raw.toString("latin1"));
    const files = Object.fromEntries(Object.entries(await snapshot(cwd)).map(([k, v]) => [k, norm(v)]));
    return { status, signal, out, files, raw };
  } finally {
    closeSync(fd);
  }
}

async function signalGroupAfterStart(
  pid: number,
  outFile: string,
  { signal, afterMs }: NonNullable<Case["groupSignal"]>,
): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await fsp.readFile(outFile, "latin1")).includes("start")) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, afterMs));
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

async function trailerWritten(teeFile: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await fsp.stat(`${teeFile}.json`).catch(() => undefined)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  // No trailer: the test that waited fails on the tee file's state.
}

interface Case {
  name: string;
  command: string;
  stdin?: string;
  /** The shell's own pid shows: written <PID> (the same shell either way, a different process each run). */
  pid?: boolean;
  /** A child's pid shows (a shell's notice of its death): written <CHILD>. */
  childPid?: RegExp;
  /**
   * What each shell says while it parses the command's first line, before any of that line ran (the plumbing
   * with it): `quotesPlumbing`, bash's syntax error quotes the whole line, plumbing and all; `beforePlumbing`,
   * nothing of the line runs (no tee file is ever ended); `unteed`, the report is written before the plumbing
   * ran, so the shell's output is plain's and the tee file lacks it.
   */
  firstLine?: Partial<Record<Framing["shell"], FirstLineReport>>;
  /** Sent to the shell's process group from outside, as the host stops a call. */
  groupSignal?: { signal: NodeJS.Signals; afterMs: number };
}

/** Signals a command may send its own group; each ignored by the shell, then `after` is printed. */
const GROUP_SIGNALS = ["USR1", "USR2", "QUIT", "ALRM", "PROF", "TERM", "INT", "HUP"];

/** The cases of signals sent to the command's process group, by the command or from outside. */
const SIGNAL_CASES: Case[] = [
  ...GROUP_SIGNALS.map((sig) => ({
    name: `SIG${sig} to the group first thing, ignored by the shell`,
    command: `trap '' ${sig}; kill -${sig} 0; echo after $?`,
  })),
  ...["USR2", "QUIT", "TERM"].map((sig) => ({
    name: `SIG${sig} to the group after output and 50 ms`,
    command: `echo before; sleep 0.05; trap '' ${sig}; kill -${sig} 0; echo after`,
  })),
  ...["USR1", "USR2", "ALRM", "PROF", "TERM", "INT", "HUP"].map((sig) => ({
    name: `SIG${sig} to the group ending the shell`,
    command: `echo partial; kill -${sig} 0; echo never`,
  })),
  { name: "SIGKILL to the group after output", command: "echo partial; kill -9 0; echo never" },
  { name: "SIGTERM to the group with children running", command: "echo start; sleep 5 | cat & sleep 0.1; kill 0" },
  { name: "a TERM trap meeting a group TERM", command: "trap 'echo caught; exit 7' TERM; kill -TERM 0; echo after" },
  ...(
    [
      ["SIGTERM", 0],
      ["SIGTERM", 100],
      ["SIGINT", 300],
      ["SIGHUP", 50],
      ["SIGQUIT", 100],
      ["SIGUSR2", 200],
    ] as const
  ).map(([signal, afterMs]) => ({
    name: `${signal} from outside to the group ${afterMs} ms after start`,
    command: "echo start; sleep 3; echo never",
    groupSignal: { signal, afterMs },
    // bash notes a child's death by QUIT with its pid.
    childPid: /\d+(?= Quit)/g,
  })),
  {
    name: "SIGTERM from outside to a trapping shell",
    command: "trap 'echo stopping; exit 3' TERM; echo start; sleep 3 & wait",
    groupSignal: { signal: "SIGTERM", afterMs: 100 },
  },
];

/** How a report the shell makes while it parses the first line differs wrapped (see {@link Case.firstLine}). */
interface FirstLineReport {
  quotesPlumbing?: boolean;
  beforePlumbing?: boolean;
  unteed?: boolean;
}

const SYNTAX_ERROR: FirstLineReport = { quotesPlumbing: true, beforePlumbing: true };
const UNRUN: FirstLineReport = { beforePlumbing: true };
const UNTEED: FirstLineReport = { unteed: true };

/**
 * What the shell says and traces, line by line: the plumbing shares the command's first line, and neither the
 * shell's reports nor `$LINENO`, `caller` or `set -x` may show it, but for what the shell says while it parses
 * that first line (`firstLine`): no check before wrapping tells those commands apart.
 */
const TEXT_CASES: Case[] = [
  { name: "a syntax error on the first line", command: "if then fi", firstLine: { bash: SYNTAX_ERROR, dash: UNRUN } },
  { name: "a syntax error on the second line", command: "echo ok\nif then fi" },
  { name: "a syntax error on the third line", command: "echo one\necho two\nif then fi\necho never" },
  {
    name: "an unterminated quote on the first line",
    command: "echo 'unterminated",
    firstLine: { bash: UNRUN, dash: UNRUN },
  },
  { name: "an unterminated quote on a later line", command: 'echo ok\necho "open\nmore' },
  { name: "an unterminated here-doc", command: "cat <<EOF\nline one\nline two", firstLine: { bash: UNTEED } },
  { name: "an unterminated quoted here-doc", command: "cat <<'EOF'\nkeep $this\n", firstLine: { bash: UNTEED } },
  { name: "an unterminated here-doc on the third line", command: "echo a\necho b\ncat <<EOF\nline" },
  { name: "a terminated here-doc", command: "cat <<EOF\nline one\n$HOME-free text\nEOF\necho after" },
  { name: "a tab-stripping here-doc", command: "cat <<-EOF\n\tindented\n\tEOF\necho done" },
  { name: "a trailing backslash", command: "echo hi \\" },
  { name: "a line continuation", command: "echo a \\\n  b \\\n  c" },
  { name: "a trailing comment", command: "echo x # a comment" },
  { name: "a leading comment line", command: "# set things up\necho y" },
  { name: "$0 and $LINENO", command: 'echo "$0"\necho "line $LINENO"' },
  {
    name: "$LINENO in a loop, a function and after them",
    command:
      'echo "$LINENO"\nfor i in 1 2; do\n  echo "loop $LINENO"\ndone\nf() {\n  echo "in f $LINENO"\n}\nf; echo "end $LINENO"',
  },
  {
    name: "caller and BASH_SOURCE",
    command:
      'f() { caller; echo "[${BASH_SOURCE[*]}] [${FUNCNAME[*]}] $LINENO"; }\nf\ncaller; echo "rc $? [${BASH_SOURCE[*]}]"',
  },
  { name: "set -x on the first line", command: 'set -x; echo one; v=$(echo two)\necho "$v"' },
  {
    name: "set -x, a function and an EXIT trap",
    command: "set -x\nf() { echo in-f; }\ntrap 'echo bye' EXIT\nf; echo $((1 + 2))",
  },
  { name: "set -v", command: "set -v\necho shown\n# a comment" },
  { name: "an arithmetic error on the second line", command: "echo a\nx=$((1 / 0))\necho after" },
  { name: "a command not found on the second line", command: "echo a\nno_such_command_xyz\necho rc=$?" },
  { name: "an alias the snapshot defines", command: "ll -d . | cut -c1" },
];

const S = "'";
/** More cases: job control, subshells, pipes, `exec` redirections, long and quote-heavy commands. */
const MORE_CASES: Case[] = [
  { name: "wait %1 and $? of a job", command: "(exit 6) & wait %1; echo job $?" },
  { name: "kill %1 of a sleeping job", command: "sleep 5 & kill %1; wait; echo rc $?" },
  // The job outlives the start of `wait`, so bash reports it done every time (a job done before `wait` starts is
  // reported or not by a race, plain as wrapped).
  { name: "set -m in a shell with no terminal", command: "set -m; (sleep 0.5; echo in-job) & wait; echo done $?" },
  { name: "nested subshells with exits", command: "( ( exit 5 ); echo inner $?; exit 6 ); echo outer $?" },
  { name: "a pipeline's status and a failing middle", command: "printf 'x\n' | false | cat; echo rc=$?" },
  { name: "a pipe into head closing early", command: "seq 1 100000 | head -n 3; echo rc=$?" },
  { name: "exec 3>&1 and writing to 3", command: "exec 3>&1; echo to3 >&3; exec 3>&-; echo closed" },
  { name: "exec 1>&2", command: "exec 1>&2; echo moved; echo err >&2" },
  { name: "exec >/dev/null 2>&1", command: "echo before; exec >/dev/null 2>&1; echo hidden; ls /nope" },
  { name: "exec <file", command: "printf 'a\nb\n' > in.txt; exec <in.txt; read x; echo got $x" },
  { name: "exit 300 wraps to 44", command: "exit 300" },
  { name: "a long command", command: `echo ${"word ".repeat(12_000)}| wc -c` },
  { name: "a quote-heavy command", command: `printf %s ${`${S}a${S}`.repeat(8_000)} | wc -c; echo "it${S}s"` },
  { name: "quotes of every kind", command: `printf '%s|' "a'b" 'c"d' $'e\tf' \`echo g\`; echo` },
  { name: "a NUL in the middle of output and stderr", command: "printf 'x\\000y' >&2; printf 'z\\000'" },
  { name: "an ERR trap under set -e", command: "set -e; trap 'echo err-trap' ERR; false; echo never" },
];

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
  { name: "a command not found", command: "no_such_command_xyz; echo rc=$?" },
  { name: "a function", command: 'f() { echo "in f $1"; return 3; }; f arg; echo rc=$?' },
  { name: "export and env", command: "export CL_X=1; env | grep '^CL_X='" },
  { name: "files made with modes", command: "umask 077; echo data > f1 && chmod 640 f1 && mkdir d && cat f1" },
  { name: "a short sleep", command: "sleep 0.1; echo slept" },
  { name: "command substitution", command: 'v=$(printf "x%.0s" 1 2 3); echo "[$v]"' },
  { name: "shell flags", command: 'echo "$-"' },
  { name: "return outside a function", command: "return 2; echo after" },
  { name: "stdout not a terminal", command: "[ -t 1 ] && echo tty || echo notty" },
  ...TEXT_CASES,
  ...SIGNAL_CASES,
  ...MORE_CASES,
];

/** Every case as the `-c` argument, and the cases of what the shell says under the host's eval too. */
const RUNS = [
  ...AS_ARGUMENT.map((framing) => ({ name: framing.name, framing, cases: CORPUS })),
  { name: IN_HOST_EVAL.name, framing: IN_HOST_EVAL, cases: TEXT_CASES },
];

describe.each(RUNS)("the wrapped command means what it means plain ($name)", ({ framing, cases }) => {
  it.concurrent.each(cases)("$name", async (c) => {
    const { command } = c;
    const plain = await run(framing, command, c);
    const teeDir = await fsp.mkdtemp(path.join(root, "tee-"));
    const teeFile = path.join(teeDir, `${crypto.randomUUID()}.out`);
    await fsp.writeFile(teeFile, "", { mode: 0o600 });
    const text = wrapCommand({ ...launcher, command, teeFile, capBytes: 1 << 26 });
    const { raw, ...via } = await run(framing, text, c, teeFile);
    const { raw: _plainRaw, ...plainRan } = plain;
    const report = c.firstLine?.[framing.shell];
    // The known difference: bash quotes the first line it could not parse, and that line starts with the plumbing.
    const plumbing = text.slice(0, text.length - command.length);
    const firstLine = command.split("\n")[0] ?? "";
    const expected = report?.quotesPlumbing
      ? { ...plainRan, out: plainRan.out.replace(`\`${firstLine}'`, `\`${plumbing}${firstLine}'`) }
      : plainRan;
    if (report?.quotesPlumbing) expect(expected.out).not.toBe(plainRan.out);
    expect(via).toEqual(expected);
    const state = await readTeeState(teeFile);
    const teed = await fsp.readFile(teeFile);
    if (report?.beforePlumbing) {
      // Nothing of the first line ran: no filter, no trailer, an empty tee file.
      expect(state.kind).toBe("unfinished");
      expect(teed.length).toBe(0);
    } else if (report?.unteed) {
      // The tee file holds all the shell wrote after the plumbing ran: all of it but the warning before.
      expect(state.kind).toBe("ended");
      expect(teed.length).toBeGreaterThan(0);
      expect(teed.length).toBeLessThan(raw?.length ?? 0);
      expect(raw?.subarray(raw.length - teed.length).equals(teed)).toBe(true);
      expect(raw?.subarray(0, raw.length - teed.length).toString()).toMatch(
        /^bash: [^\n]*warning: here-document at line \d+ delimited by end-of-file \(wanted `EOF'\)\n$/,
      );
    } else {
      // The tee file holds every byte the shell wrote, its own reports and warnings included.
      expect(state.kind).toBe("ended");
      expect(teed.equals(raw ?? Buffer.alloc(0))).toBe(true);
    }
    await fsp.rm(teeFile, { force: true });
    await fsp.rm(`${teeFile}.json`, { force: true });
    expect(await fsp.readdir(teeDir)).toEqual([]);
  });
});

describe("what is left of the plumbing when the command starts", () => {
  it("bash's $_ reads exec, whether the FIFO was made or not, never a path of the plumbing", async () => {
    const dir = await fsp.mkdtemp(path.join(root, "lastarg-"));
    const made = path.join(dir, "t.out");
    await fsp.writeFile(made, "", { mode: 0o600 });
    // In a folder that does not exist, mkfifo fails and the command runs untouched.
    for (const teeFile of [made, path.join(dir, "missing", "t.out")]) {
      const text = wrapCommand({ ...launcher, command: 'echo "[$_]"', teeFile, capBytes: 1024 });
      const ran = spawnSync("bash", ["-c", text], { encoding: "utf8" });
      expect(ran.stdout + ran.stderr).toBe("[exec]\n");
    }
    await trailerWritten(made);
  });
});

/** The pid, process group and session of every process whose command line names `needle`. */
async function processesNaming(needle: string): Promise<Array<{ pid: number; pgrp: number; sid: number }>> {
  const found: Array<{ pid: number; pgrp: number; sid: number }> = [];
  for (const name of await fsp.readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await fsp.readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (!cmdline.split("\0").includes(needle)) continue;
    const stat = await fsp.readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    // Fields after the command name in parentheses: state, ppid, pgrp, session.
    const [, , pgrp, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (pgrp && sid) found.push({ pid: Number(name), pgrp: Number(pgrp), sid: Number(sid) });
  }
  return found;
}

/** Every process of session `sid`. */
async function processesInSession(sid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await fsp.readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await fsp.readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    if (stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3] === String(sid)) pids.push(Number(name));
  }
  return pids;
}

/** The socket inodes a process holds open beyond stdin, stdout and stderr (the host's socket pair, inherited). */
async function ownSocketsOf(pid: number): Promise<string[]> {
  const fds = (await fsp.readdir(`/proc/${pid}/fd`).catch(() => [])).filter((fd) => Number(fd) > 2);
  const links = await Promise.all(fds.map((fd) => fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")));
  return links.filter((l) => l.startsWith("socket:"));
}

/** Inodes of the TCP sockets listening on this machine (`ss -ltn`, read from /proc/net). */
async function listeningInodes(): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await fsp.readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === "0A" && f[9]) inodes.add(f[9]);
    }
  }
  return inodes;
}

/** The processes holding a socket that listens now and did not before. */
async function newListenersAmong(before: Set<string>, pids: number[]): Promise<number[]> {
  const fresh = [...(await listeningInodes())].filter((i) => !before.has(i)).map((i) => `socket:[${i}]`);
  const holders: number[] = [];
  for (const pid of pids) {
    const fds = await fsp.readdir(`/proc/${pid}/fd`).catch(() => []);
    const links = await Promise.all(fds.map((fd) => fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")));
    if (links.some((l) => fresh.includes(l))) holders.push(pid);
  }
  return holders;
}

describe("the filter is out of the command's reach and listens on nothing", () => {
  it.concurrent.each([
    {
      name: "SIGUSR1 to the filter itself, by its pid",
      command: 'echo sent; until [ -e "$GO" ]; do sleep 0.05; done; echo after',
      toFilter: ["SIGUSR1", "SIGUSR2", "SIGQUIT", "SIGTERM"] as NodeJS.Signals[],
    },
    {
      name: "SIGUSR1 to the group",
      command: "trap '' USR1; kill -USR1 0; echo sent; until [ -e \"$GO\" ]; do sleep 0.05; done; echo after",
    },
    {
      name: "SIGUSR1 and SIGUSR2 twice",
      command:
        "trap '' USR1 USR2; kill -USR1 0; kill -USR2 0; echo sent; sleep 0.1; kill -USR1 0; until [ -e \"$GO\" ]; do sleep 0.05; done",
    },
    {
      name: "NODE_OPTIONS asking for an inspector",
      command: 'echo sent; until [ -e "$GO" ]; do sleep 0.05; done; echo after',
      env: { NODE_OPTIONS: "--inspect=127.0.0.1:0" },
    },
  ])("$name", async ({ command, env, toFilter }) => {
    const dir = await fsp.mkdtemp(path.join(root, "reach-"));
    const teeFile = path.join(dir, `${crypto.randomUUID()}.out`);
    await fsp.writeFile(teeFile, "", { mode: 0o600 });
    const goFile = path.join(dir, "go");
    const before = await listeningInodes();
    const chunks: Buffer[] = [];
    const child = spawn("bash", ["-c", wrapCommand({ ...launcher, command, teeFile, capBytes: 1 << 20 })], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      // The command ends once the test has looked (it creates GO): however slow the machine, it runs meanwhile.
      env: { ...process.env, ...env, GO: goFile },
    });
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (status, signal) => resolve({ status, signal })),
    );
    while (!Buffer.concat(chunks).includes("sent")) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    // While the command runs: the filter (Node, naming the tee file) is in a session and group of its own.
    const filters = await processesNaming(teeFile);
    expect(filters.length).toBe(1);
    const [filter] = filters;
    for (const signal of toFilter ?? []) process.kill(filter?.pid ?? 0, signal);
    if (toFilter) await new Promise((r) => setTimeout(r, 200));
    expect(filter?.sid).not.toBe(child.pid);
    expect(filter?.pgrp).not.toBe(child.pid);
    expect(await ownSocketsOf(filter?.pid ?? 0)).toEqual([]);
    // No new listening socket belongs to the filter or to any process of the wrapped command's session.
    const session = await processesInSession(child.pid ?? 0);
    expect(await newListenersAmong(before, [filter?.pid ?? 0, ...session])).toEqual([]);
    await fsp.writeFile(goFile, "");
    expect(await closed).toEqual({ status: 0, signal: null });
    await trailerWritten(teeFile);
    const out = Buffer.concat(chunks).toString("latin1");
    expect(out).not.toMatch(/Debugger|inspector|ws:\/\//);
    expect((await fsp.readFile(teeFile)).toString("latin1")).toBe(out);
    // After the end of the stream the filter is gone, and nothing it started stays.
    expect(await processesNaming(teeFile)).toEqual([]);
  });
});
