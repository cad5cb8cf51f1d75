/**
 * `npm run demo`: a real OpenClaw gateway, offline, in a temporary folder, with
 * context-ledger installed from this working tree and a scripted model on 127.0.0.1;
 * the same reset-loop session runs at the same time with the host's `legacy` engine.
 * Prints progress from the first second, each turn as it completes, a table and a
 * cost line, and writes an HTML report (+ JSON) next to the project. `--help` lists
 * the options. Ctrl-C stops every child process group and removes the temp folder.
 */
import { spawn, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  ensureHost,
  fenceStageInstallRoot,
  hostPackageDir,
  NODE_BIN_DIR,
  REPO_ROOT,
  type HostVersion,
} from "../test/host/host-install.js";
import { stopAllGroups, liveGroupPids } from "../test/host/processes.js";
import { loadTokenCounter } from "../test/host/token-count.js";
import { DEMO_HELP, parseDemoArgs, type DemoHost, type DemoOptions } from "./demo-cli.js";
import {
  engineVerdicts,
  formatCost,
  formatTable,
  formatVerdictTable,
  headline,
  renderDemoReport,
  verdictSentence,
  type DemoReportInput,
} from "./demo-report.js";
import { formatPromptReading } from "./demo-prompt.js";
import { fillDebt, runEngine, type EngineRun } from "./demo-run.js";
import { stagePlugin } from "./stage-plugin.js";

const command = parseDemoArgs(process.argv.slice(2));
if (command.kind === "help") {
  console.log(DEMO_HELP);
  process.exit(0);
}
if (command.kind === "error") {
  console.error(`demo: ${command.message}`);
  process.exit(2);
}
const options: DemoOptions = command.options;
if (options.rerender) {
  const saved = JSON.parse(readFileSync(options.rerender, "utf8")) as DemoReportInput;
  const out = path.resolve(
    process.argv.includes("--out") ? options.out : options.rerender.replace(/\.json$/i, "") + ".html",
  );
  writeFileSync(out, renderDemoReport(saved));
  console.log(`report: ${path.relative(process.cwd(), out) || out} (re-rendered from ${options.rerender})`);
  process.exit(0);
}
const started = Date.now();
const stamp = () => `[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s]`;
let lastLine = Date.now();
const say = (line: string) => {
  lastLine = Date.now();
  console.log(`${stamp()} ${line}`);
};

// Everything temporary (host state, staged plugin, the host's own temp files) lives in one folder.
const tempRoot = mkdtempSync(path.join(os.tmpdir(), "context-ledger-demo-"));
process.env.TMPDIR = tempRoot;
// Host processes cache their compiled code in <tmpdir>/node-compile-cache by default, and every host
// env has a fresh TMPDIR: point them at one cache under .cache/ so each gateway and CLI call after
// the first run skips recompiling the host's modules.
process.env.NODE_COMPILE_CACHE ??= path.join(REPO_ROOT, ".cache", "node-compile-cache");
// The harness's env.cleanup() keeps each host state when this is set.
if (options.keepTemp) process.env.CONTEXT_LEDGER_KEEP_HOST_TMP = "1";
const cleanups: (() => Promise<void>)[] = [];
let stopping = false;
let tsc: ChildProcess | undefined;

async function cleanupAll(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
  await stopAllGroups();
  if (options.keepTemp) console.log(`temporary host state kept in ${tempRoot}`);
  else rmSync(tempRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) {
      // A second Ctrl-C: kill what is left at once.
      for (const pid of liveGroupPids()) {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      rmSync(tempRoot, { recursive: true, force: true });
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    stopping = true;
    console.log(`\n${stamp()} ${signal}: stopping every process the demo started and removing ${tempRoot} ...`);
    tsc?.kill("SIGTERM");
    void cleanupAll().finally(() => {
      console.log(`${stamp()} stopped; nothing left behind`);
      process.exit(signal === "SIGINT" ? 130 : 143);
    });
  });
}

// Say what is being waited on whenever 10 s pass without a line.
const busy = new Map<string, { what: string; since: number }>();
const ticker = setInterval(() => {
  if (stopping || Date.now() - lastLine < 10_000 || busy.size === 0) return;
  say(
    `... ${[...busy].map(([who, b]) => `${who}: ${b.what} (${Math.round((Date.now() - b.since) / 1000)} s)`).join("; ")}`,
  );
}, 1_000);
ticker.unref();

function build(): Promise<void> {
  return new Promise((resolve, reject) => {
    busy.set("build", { what: "tsc", since: Date.now() });
    tsc = spawn(path.join(NODE_BIN_DIR, "tsc"), ["-p", "tsconfig.build.json"], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    tsc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    tsc.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    tsc.once("close", (code) => {
      busy.delete("build");
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `Expected the build (tsc -p tsconfig.build.json) to pass, got exit ${String(code)}:\n${out.slice(-3000)}`,
          ),
        );
    });
  });
}

/** True when dist/index.js is newer than index.ts, every src/ file, the tsconfigs and package.json. */
function distIsCurrent(): boolean {
  const built = path.join(REPO_ROOT, "dist", "index.js");
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  const sources = [
    "index.ts",
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "openclaw.plugin.json",
    ...readdirSync(path.join(REPO_ROOT, "src"), { recursive: true }).map((f) => path.join("src", String(f))),
  ];
  return sources.every((f) => {
    const full = path.join(REPO_ROOT, f);
    return !existsSync(full) || statSync(full).mtimeMs <= builtAt;
  });
}

async function main(): Promise<void> {
  say(
    `context-ledger demo: OpenClaw ${options.host}, ${options.turns} turn${options.turns === 1 ? "" : "s"}, window ${options.window.toLocaleString("en-US")} tokens, exec printing ${options.output.toLocaleString("en-US")} chars + a ${options.answer.toLocaleString("en-US")}-char answer each turn${options.baseUrl ? `, model ${options.model} at ${options.baseUrl}` : ", offline mock model"} (--help for options)`,
  );
  if (options.build && distIsCurrent()) say("dist/ is newer than every source file: no build needed");
  else if (options.build) {
    say("building the plugin (tsc) ...");
    await build();
    say("built dist/");
  }
  let host: DemoHost = options.host;
  if (!existsSync(path.join(hostPackageDir(host as HostVersion), "package.json")))
    say(`installing OpenClaw ${host} into .cache/ (first time only: ~1 min, ~650 MB) ...`);
  busy.set("host", { what: `installing OpenClaw ${host}`, since: Date.now() });
  const installed = await ensureHost(host as HostVersion).catch((error: unknown) => {
    if (process.argv.includes("--host")) throw error;
    say(
      `could not install OpenClaw ${host} (${error instanceof Error ? error.message : String(error)}); running the current host 2026.9.6 instead`,
    );
    host = "2026.9.6";
    return ensureHost(host);
  });
  busy.delete("host");
  // 2026.4.24 names its staging folder after the REAL path of its package (sha256 of the realpath);
  // ensureHost fences the path as given, which differs when .cache/openclaw-* is a symlink. Without a
  // package.json there, its `npm install` walks up to this project's package.json and rewrites node_modules.
  const installRoot = installed.stageDir
    ? await fenceStageInstallRoot(installed.stageDir, realpathSync(installed.packageDir), host)
    : undefined;
  options.host = host;
  say(`OpenClaw ${host} ready (${path.relative(REPO_ROOT, installed.packageDir) || installed.packageDir})`);
  // Transcripts and requests repeat the same texts turn after turn: count each distinct text once.
  const exact = await loadTokenCounter();
  const seen = new Map<string, number>();
  const counter = (text: string): number => {
    let n = seen.get(text);
    if (n === undefined) seen.set(text, (n = exact(text)));
    return n;
  };
  const staged = await stagePlugin();
  if (!options.keepTemp) cleanups.push(() => staged.cleanup());

  // 2026.4.24 stages bundled-plugin dependencies at the first gateway start: let one gateway do it alone.
  const firstStage = installRoot !== undefined && !existsSync(path.join(installRoot, "node_modules"));
  if (firstStage)
    say(
      "first run on this host line: the first gateway stages its bundled plugins (one time, ~1 min); the second starts after it",
    );
  let releaseSecond: () => void = () => undefined;
  const firstUp = new Promise<void>((resolve) => (releaseSecond = resolve));
  const serialGate = options.serial ? undefined : firstStage ? firstUp : undefined;

  const engines = ["context-ledger", "legacy"] as const;
  const runOne = async (engine: (typeof engines)[number], index: number): Promise<EngineRun> => {
    const who = engine.padEnd(14);
    if (index === 1 && serialGate) await serialGate;
    const run = await runEngine({
      options,
      engine,
      ledgerDir: staged.dir,
      counter,
      say: (line) => say(`${who} ${line}`),
      busy: (what) => (what ? busy.set(engine, { what, since: Date.now() }) : busy.delete(engine)),
      gatewayUp: () => releaseSecond(),
      onCleanup: (fn) => cleanups.push(fn),
      stopping: () => stopping,
    });
    busy.delete(engine);
    return run;
  };
  let runs: EngineRun[];
  if (options.serial) {
    const first = await runOne("context-ledger", 0);
    runs = [first, await runOne("legacy", 1)];
  } else {
    const settled = await Promise.allSettled(engines.map((e, i) => runOne(e, i)));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    runs = settled.map((s) => (s as PromiseFulfilledResult<EngineRun>).value);
  }
  if (stopping) return;
  const budget = runs[0]?.promptBudget ?? options.window;
  fillDebt(runs, budget);
  const seconds = Math.round((Date.now() - started) / 1000);

  console.log(`\n${formatTable(runs.flatMap((r) => r.rows))}\n`);
  for (const line of headline({ engines: runs, contextWindow: options.window })) console.log(line);
  console.log("");
  for (const line of formatCost(runs, options.prices)) console.log(`cost  ${line}`);
  const verdicts = engineVerdicts(runs);
  console.log(`\n${formatVerdictTable(verdicts)}\n${verdictSentence(verdicts)}`);
  for (const r of runs) if (r.prompt) console.log(`prompt  ${formatPromptReading(r.engine, r.prompt)}`);
  const out = path.resolve(options.out);
  mkdirSync(path.dirname(out), { recursive: true });
  const input = {
    hostVersion: host,
    contextWindow: options.window,
    maxTokens: options.maxTokens,
    turns: options.turns,
    outputChars: options.output,
    answerChars: options.answer,
    promptBudget: budget,
    prices: options.prices,
    engines: runs.map((r) => ({ engine: r.engine, rows: r.rows, cost: r.cost, prompt: r.prompt })),
    seconds,
    schedule: options.serial ? "one after the other" : "at the same time",
  };
  writeFileSync(out, renderDemoReport(input));
  writeFileSync(
    out.replace(/\.html?$/i, "") + ".json",
    `${JSON.stringify({ ...input, gatewayStartMs: runs.map((r) => r.gatewayStartMs) }, null, 2)}\n`,
  );
  console.log(`\nreport: ${path.relative(process.cwd(), out) || out}  (open it in a browser)  —  ${seconds} s in all`);
}

try {
  await main();
  await cleanupAll();
  process.exit(0);
} catch (error) {
  if (!stopping) {
    console.error(`${stamp()} demo failed: ${error instanceof Error ? error.message : String(error)}`);
    console.error("rerun with --keep-temp to keep the host state and logs for a look");
    await cleanupAll();
    process.exit(1);
  }
}
