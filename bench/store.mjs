// Benchmark 5: the artifact store. Stash throughput of 150 KB and 20 MB outputs
// (end to end: hash, gzip, write, fsync, link, meta) and by gzip level; fetch p50
// of every selector from a 10 MB artifact through store.select; a 10-line
// ledger_fetch from a 200 MiB artifact and a `$[*][*]` JSON selector over 14 MB,
// each measured in a fresh child process (time and peak RSS); gc over 100k artifacts.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { artifactPaths } from "../dist/src/artifacts/format/blob-path.js";
import { ARTIFACT_META_SCHEMA } from "../dist/src/artifacts/format/meta.js";
import { createArtifactStore, formatHandle, selectSlice, sha256Hex } from "../dist/src/artifacts/index.js";
import { check, round, summarize, timeRuns } from "./lib/stats.mjs";

const MB = 1_048_576;
const SELF = fileURLToPath(import.meta.url);
const BIG_LINES = 2_097_152; // 200 MiB of 100-byte lines

async function stashBench(root, reps, OUTPUT_KINDS, createRng) {
  const store = createArtifactStore({ root });
  const rng = createRng(150);
  const kinds = ["log", "json", "html", "test"];
  const inputs = Array.from({ length: reps + 2 }, (_, i) =>
    OUTPUT_KINDS[kinds[i % kinds.length]].make(150 * 1024, rng),
  );
  await store.stash("warm-up"); // directory creation and realpath happen once per store
  const times = await timeRuns(reps, (i) => store.stash(inputs[i], { kind: "tool-output" }));
  const bytes = inputs.slice(0, reps).map((s) => Buffer.byteLength(s));
  const mbps = times.map((ms, i) => bytes[i] / MB / (ms / 1000));
  const dedup = await timeRuns(reps, (i) => store.stash(inputs[i]));
  return { sizeBytes: bytes[0], ms: summarize(times), mbPerSec: summarize(mbps), dedupMs: summarize(dedup) };
}

/** 20 MB outputs of each kind: stash(bytes), stashFile, and stash(bytes) by gzip level (speed and size). */
async function bigStashBench(dir, reps, OUTPUT_KINDS, createRng) {
  const kinds = ["log", "json", "html", "test"];
  const rng = createRng(20);
  const inputs = kinds.map((k) => Buffer.from(OUTPUT_KINDS[k].make(20 * MB, rng)));
  // Distinct content every run (a repeat would be a dedup hit), prepared before the clock starts.
  const variant = (i, n) => Buffer.concat([inputs[i % kinds.length], Buffer.from(`\nrun ${n}\n`)]);
  const byLevel = [];
  for (const level of [1, 2, 3, 6]) {
    const store = createArtifactStore({ root: path.join(dir, `level-${level}`), gzipLevel: level });
    await store.stash("warm-up");
    const rows = [];
    for (let r = 0; r < reps * kinds.length; r++) {
      const input = variant(r, `${level}-${r}`);
      const t = performance.now();
      const { meta } = await store.stash(input);
      const ms = performance.now() - t;
      rows.push({
        kind: kinds[r % kinds.length],
        ms,
        mbps: input.length / MB / (ms / 1000),
        ratio: meta.storedBytes / meta.bytes,
      });
    }
    byLevel.push({
      level,
      mbPerSec: summarize(rows.map((r) => r.mbps)),
      ratio: round(rows.reduce((s, r) => s + r.ratio, 0) / rows.length),
      byKind: Object.fromEntries(
        kinds.map((k) => {
          const mine = rows.filter((r) => r.kind === k);
          return [k, { mbPerSec: summarize(mine.map((r) => r.mbps)).p50, ratio: round(mine[0].ratio) }];
        }),
      ),
    });
    await rm(path.join(dir, `level-${level}`), { recursive: true, force: true });
  }
  const store = createArtifactStore({ root: path.join(dir, "file") });
  await store.stash("warm-up");
  const fileTimes = [];
  for (let r = 0; r < reps * kinds.length; r++) {
    const file = path.join(dir, "tee.log");
    await writeFile(file, variant(r, `file-${r}`));
    const t = performance.now();
    await store.stashFile(file);
    fileTimes.push(performance.now() - t);
  }
  const fileMbps = fileTimes.map((ms) => 20 / (ms / 1000));
  return { sizeBytes: inputs[0].length, byLevel, stashFileMbPerSec: summarize(fileMbps) };
}

async function fetchBench(root, reps, OUTPUT_KINDS, createRng) {
  const store = createArtifactStore({ root });
  const rng = createRng(10);
  const log = OUTPUT_KINDS.log.make(10 * MB, rng);
  const json = OUTPUT_KINDS.json.make(10 * MB, rng);
  const logHandle = (await store.stash(log, { format: "log" })).handle;
  const jsonHandle = (await store.stash(json, { format: "json" })).handle;
  const logLines = log.split("\n").length;
  const selectors = [
    ["headtail", logHandle, { kind: "headtail" }],
    ["head", logHandle, { kind: "head", lines: 100 }],
    ["tail", logHandle, { kind: "tail", lines: 100 }],
    ["range", logHandle, { kind: "range", start: Math.floor(logLines / 2), end: Math.floor(logLines / 2) + 100 }],
    ["grep", logHandle, { kind: "grep", pattern: "ERROR .*E9[0-9]{3}", context: 1 }],
    ["json", jsonHandle, { kind: "json", path: "$.data[-1]" }],
  ];
  const rows = [];
  for (const [name, handle, selector] of selectors) {
    let slice;
    // The same store: chunks decoded by the first call are kept in its text cache.
    const times = await timeRuns(reps, async () => {
      slice = await store.select(handle, selector, { maxChars: 8_000 });
    });
    // A fresh store each time: nothing decoded in memory yet (the OS file cache is warm).
    const cold = await timeRuns(reps, () =>
      createArtifactStore({ root }).select(handle, selector, { maxChars: 8_000 }),
    );
    const text = handle === logHandle ? log : json;
    const selectOnly = await timeRuns(reps, () => selectSlice(text, selector, { maxChars: 8_000 }));
    rows.push({
      selector: name,
      ms: summarize(times),
      coldMs: summarize(cold),
      selectOnlyMs: summarize(selectOnly),
      notice: slice.notice,
      truncated: slice.truncated,
    });
  }
  const readOnly = await timeRuns(reps, () => createArtifactStore({ root }).readText(logHandle));
  const grep = { kind: "grep", pattern: "status=5\\d\\d|E1234", flags: "i" };
  const grepTimes = await timeRuns(reps, () =>
    store.select(logHandle, grep, { maxChars: 8_000, grepTimeoutMs: 5_000 }),
  );
  const grepSlice = await store.select(logHandle, grep, { maxChars: 8_000, grepTimeoutMs: 5_000 });
  return {
    artifactBytes: { log: Buffer.byteLength(log), json: Buffer.byteLength(json) },
    selectors: rows,
    readVerifyMs: summarize(readOnly),
    grepScanMs: summarize(grepTimes),
    grepNotice: grepSlice.notice,
  };
}

/** `BIG_LINES` 100-byte log lines (`line <n> status=...`), made piece by piece, never whole. */
async function* bigLog() {
  const filler = Buffer.alloc(10_000 * 100, ".");
  for (let i = 99; i < filler.length; i += 100) filler[i] = 10;
  for (let n = 0; n < BIG_LINES; n += 10_000) {
    const piece = Buffer.allocUnsafe((Math.min(BIG_LINES, n + 10_000) - n) * 100);
    filler.copy(piece, 0, 0, piece.length);
    for (let k = n; k < n + piece.length / 100; k++)
      piece.write(`line ${k + 1} status=${(k * 7919) % 600} took ${(k * 31) % 997}ms `, (k - n) * 100, "latin1");
    yield piece;
  }
}

const shellQuote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * CPU time (user + system, ms) of each command in `commands` run by `bash -c` one after another, from bash's
 * `times` for its children: unlike wall time, it does not grow with the machine's load. A process a command
 * leaves to run on its own (the wrapper's filter) is not a child any more when it ends: not counted.
 */
function childCpuMsEach(commands) {
  const quote = shellQuote;
  const script = `${commands.map((c) => `bash -c ${quote(c)} >/dev/null`).join("\n")}\ntimes`;
  const r = spawnSync("bash", ["-c", script], { encoding: "utf8" });
  // `times` prints the shell's own user and system time, then its children's: "0m0.580s 0m0.340s".
  const children = r.stdout.trim().split("\n").at(-1) ?? "";
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, sec]) => Number(m) * 60 + Number(sec));
  if (r.status !== 0 || seconds.length !== 2) throw new Error(`full exec bench: no times from bash: ${r.stderr}`);
  return ((seconds[0] + seconds[1]) * 1000) / commands.length;
}

/**
 * A 20 MB `exec` output with `offload.fullExecOutput`: the command run by bash as the gateway runs it,
 * plain and wrapped (the tee's cost to the command), then the gateway's side in a fresh process. Also a
 * trivial command (`echo hi`) plain and wrapped, in wall and in CPU time: the filter's start (setsid,
 * Node) is the whole of the difference there; and the gateway's check that the shell parses a command
 * before it wraps it (`<shell> -n`), for `echo hi` and for a 120 KB command.
 */
export async function fullExecBench(dir, reps) {
  const loadAvg = Math.round(os.loadavg()[0] * 100) / 100;
  const { wrapCommand } = await import("../dist/src/capture/full-exec/wrap-command.js");
  const { createTeeFile } = await import("../dist/src/capture/full-exec/tee-files.js");
  const { resolveFilterLauncher } = await import("../dist/src/capture/full-exec/filter-launcher.js");
  const found = await resolveFilterLauncher();
  if (!found.ok) throw new Error(`full exec bench: no filter launcher: ${found.reason}`);
  const launcher = found.launcher;
  const producer = `'${process.execPath}' -e 'const b = Buffer.alloc(65536, 97); for (let i = 0; i < 320; i++) process.stdout.write(b)'`;
  const runShell = (command) => {
    const t = performance.now();
    const r = spawnSync("bash", ["-c", command], { maxBuffer: 64 * MB });
    if (r.status !== 0) throw new Error(`full exec bench command failed: ${String(r.stderr).slice(-400)}`);
    return { ms: performance.now() - t, out: r.stdout };
  };
  const wrap = (command, teeFile) => wrapCommand({ ...launcher, command, teeFile, capBytes: 64 * MB });
  const plain = [];
  const wrapped = [];
  let file = "";
  let out;
  for (let r = 0; r < reps; r++) {
    plain.push(runShell(producer).ms);
    file = await createTeeFile(path.join(dir, "tee"));
    const run = runShell(wrap(producer, file));
    wrapped.push(run.ms);
    out = run.out;
  }
  const trivialPlain = [];
  const trivialWrapped = [];
  for (let r = 0; r < 5 * reps; r++) {
    trivialPlain.push(runShell("echo hi").ms);
    const teeFile = await createTeeFile(path.join(dir, "tee-trivial"));
    trivialWrapped.push(runShell(wrap("echo hi", teeFile)).ms);
  }
  const cpuRuns = 20;
  const trivialCpuPlainMs = round(childCpuMsEach(Array.from({ length: cpuRuns }, () => "echo hi")));
  const cpuTees = [];
  for (let r = 0; r < cpuRuns; r++) cpuTees.push(await createTeeFile(path.join(dir, "tee-cpu")));
  const trivialCpuWrappedMs = round(childCpuMsEach(cpuTees.map((teeFile) => wrap("echo hi", teeFile))));
  // The filter's own processes, as the wrapper starts them but waited for here, reading an empty stream.
  const filterStart = (teeFile) =>
    [
      launcher.setsidPath,
      launcher.shPath,
      "-c",
      'exec 3>&-; exec "$@"',
      "sh",
      launcher.envPath,
      "-i",
      launcher.nodePath,
      "--disable-sigusr1",
      launcher.filterPath,
      teeFile,
      String(64 * MB),
    ]
      .map((word) => (word.startsWith("-") ? word : shellQuote(word)))
      .join(" ") + " </dev/null";
  const filterTees = [];
  for (let r = 0; r < cpuRuns; r++) filterTees.push(await createTeeFile(path.join(dir, "tee-filter")));
  const filterCpuMs = round(childCpuMsEach(filterTees.map(filterStart)));
  const hostCopyFile = path.join(dir, "host-copy.txt");
  await writeFile(hostCopyFile, out.subarray(-200_000).toString("utf8"));
  const child = runChild(["tee", path.join(dir, "state"), file, hostCopyFile]);
  return {
    loadAvg,
    outputBytes: out.length,
    plainMs: summarize(plain),
    wrappedMs: summarize(wrapped),
    trivialPlainMs: summarize(trivialPlain),
    trivialWrappedMs: summarize(trivialWrapped),
    trivialCpuPlainMs,
    trivialCpuWrappedMs,
    filterCpuMs,
    ...child,
  };
}

/** Stashes 200 MiB by stream, then times 10-line ledger_fetch calls in a fresh process. */
async function bigFetchBench(dir) {
  const root = path.join(dir, "agents", "main");
  const t = performance.now();
  const { handle, meta } = await createArtifactStore({ root }).stashStream(bigLog(), { kind: "tool-output" });
  const stashStreamMs = performance.now() - t;
  const child = runChild(["fetch200", root, handle]);
  return {
    artifactBytes: meta.bytes,
    storedBytes: meta.storedBytes,
    stashStreamMs: round(stashStreamMs),
    stashStreamMbPerSec: round(meta.bytes / MB / (stashStreamMs / 1000)),
    ...child,
  };
}

/** A 14 MB JSON array of 85,000 objects, `$[*][*]` against JSON.parse, each in a fresh process. */
async function jsonBench(dir, reps) {
  const rows = [];
  for (let i = 0, size = 2; size < 14 * MB; i++) {
    const row = {
      id: i,
      name: `user ${i}`,
      email: `u${i}@example.com`,
      tags: ["a", "b", String(i % 7)],
      score: (i * 37) % 1000,
      active: i % 2 === 0,
      note: "lorem ipsum dolor sit amet ".repeat(2),
    };
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  const text = JSON.stringify(rows);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, "doc.json");
  await writeFile(file, text);
  const root = path.join(dir, "json-store");
  const { handle } = await createArtifactStore({ root }).stash(text, { format: "json" });
  const med = (mode) => {
    const runs = Array.from({ length: reps }, () => runChild(["json", mode, file, root, handle]));
    const pick = (f) => round([...runs.map(f)].sort((a, b) => a - b)[Math.floor(runs.length / 2)]);
    return { ms: pick((r) => r.ms), peakExtraMB: pick((r) => r.peakExtraMB), notice: runs[0].notice };
  };
  const parse = med("parse");
  const select = med("select");
  const store = med("store");
  return {
    docBytes: text.length,
    values: rows.length * 7,
    parse,
    select,
    store,
    timeRatio: round(select.ms / parse.ms),
    memRatio: round(select.peakExtraMB / parse.peakExtraMB),
  };
}

function runChild(args) {
  const child = spawnSync(process.execPath, ["--expose-gc", SELF, "--child", ...args], {
    encoding: "utf8",
    maxBuffer: 4 << 20,
  });
  if (child.status !== 0) throw new Error(`store bench child ${args[0]} failed: ${child.stderr.trim().slice(-800)}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1));
}

/** Writes `count` small artifacts (blob + meta) directly in the store layout. */
async function populate(root, count) {
  const now = Date.now();
  const made = new Set();
  const batch = [];
  for (let i = 0; i < count; i++) {
    const body = `artifact ${i}\n`;
    const hex = sha256Hex(body);
    const p = artifactPaths(root, hex);
    const old = i % 10 === 0;
    const meta = {
      schema: ARTIFACT_META_SCHEMA,
      handle: formatHandle(hex),
      sha256: hex,
      bytes: body.length,
      storedBytes: body.length,
      compression: "none",
      createdAt: new Date(now - (old ? 40 : 1) * 86_400_000).toISOString(),
      kind: "bench",
      format: "text",
      lines: 1,
      origin: {},
    };
    batch.push(
      (async () => {
        for (const d of [path.dirname(p.blob), path.dirname(p.meta)]) {
          if (!made.has(d)) {
            made.add(d);
            await mkdir(d, { recursive: true, mode: 0o700 });
          }
        }
        await writeFile(p.blob, body, { mode: 0o600 });
        await writeFile(p.meta, JSON.stringify(meta), { mode: 0o600 });
      })(),
    );
    if (batch.length >= 256) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}

async function gcBench(root, count) {
  const t0 = performance.now();
  await populate(root, count);
  const populateMs = performance.now() - t0;
  const store = createArtifactStore({ root });
  const t2 = performance.now();
  const real = await store.gc({ maxAgeMs: 30 * 86_400_000 });
  const realMs = performance.now() - t2;
  return {
    artifacts: count,
    populateMs: round(populateMs),
    gcMs: round(realMs),
    removed: real.removed.length,
    kept: real.keptCount,
  };
}

/**
 * Runs the benchmark.
 * @param {{ stashReps?: number, bigStashReps?: number, fetchReps?: number, jsonReps?: number,
 *   gcArtifacts?: number, log?: (line: string) => void }} [options]
 */
export async function runStoreBench(options = {}) {
  const log = options.log ?? (() => {});
  // Loaded here, not at the top: they import TypeScript, which a child process (plain node) cannot.
  const { OUTPUT_KINDS } = await import("./lib/content.mjs");
  const { createRng } = await import("./lib/rng.mjs");
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-bench-store-"));
  try {
    const stash = await stashBench(path.join(dir, "stash"), options.stashReps ?? 40, OUTPUT_KINDS, createRng);
    log(
      `stash 150 KB: p50 ${stash.ms.p50} ms = ${stash.mbPerSec.p50} MB/s (p5 ${stash.mbPerSec.p5}, p95 ${stash.mbPerSec.p95}); dedup re-stash p50 ${stash.dedupMs.p50} ms`,
    );
    const big = await bigStashBench(path.join(dir, "big"), options.bigStashReps ?? 3, OUTPUT_KINDS, createRng);
    for (const l of big.byLevel)
      log(
        `stash 20 MB at gzip level ${l.level}: p50 ${l.mbPerSec.p50} MB/s (p5 ${l.mbPerSec.p5}), stored ${Math.round(l.ratio * 100)}% of the bytes; by kind ${Object.entries(
          l.byKind,
        )
          .map(([k, v]) => `${k} ${v.mbPerSec} MB/s ${Math.round(v.ratio * 100)}%`)
          .join(", ")}`,
      );
    log(`stashFile 20 MB (level 1): p50 ${big.stashFileMbPerSec.p50} MB/s (p5 ${big.stashFileMbPerSec.p5})`);
    const fullExec = await fullExecBench(path.join(dir, "full-exec"), options.bigStashReps ?? 3);
    log(
      `full exec capture of ${(fullExec.outputBytes / MB).toFixed(1)} MB: the command p50 ${fullExec.plainMs.p50} ms plain, ${fullExec.wrappedMs.p50} ms wrapped; \`echo hi\` p50 ${fullExec.trivialPlainMs.p50} ms plain, ${fullExec.trivialWrappedMs.p50} ms wrapped, CPU ${fullExec.trivialCpuPlainMs} ms plain, ${fullExec.trivialCpuWrappedMs} ms wrapped + ${fullExec.filterCpuMs} ms the filter; the gateway's side: stored in ${fullExec.stashMs} ms (${fullExec.stashMbPerSec} MB/s), peak +${fullExec.capturePeakExtraMB} MB; linked to the host's copy in ${fullExec.linkMs} ms, peak +${fullExec.linkPeakExtraMB} MB`,
    );
    const fetch = await fetchBench(path.join(dir, "fetch"), options.fetchReps ?? 15, OUTPUT_KINDS, createRng);
    for (const r of fetch.selectors)
      log(
        `fetch ${r.selector.padEnd(8)} from 10 MB: p50 ${r.ms.p50} ms (p95 ${r.ms.p95}; fresh store ${r.coldMs.p50} ms; selector alone on the text in memory ${r.selectOnlyMs.p50} ms) — ${r.notice.slice(0, 90)}`,
      );
    log(
      `whole read+decode+verify 10 MB: p50 ${fetch.readVerifyMs.p50} ms; grep scan of 10 MB: p50 ${fetch.grepScanMs.p50} ms`,
    );
    const bigFetch = await bigFetchBench(path.join(dir, "big-fetch"));
    log(
      `200 MiB by stashStream: ${bigFetch.stashStreamMs} ms (${bigFetch.stashStreamMbPerSec} MB/s); 10-line ledger_fetch in a fresh process: first ${bigFetch.firstMs} ms, then p50 ${bigFetch.laterMs.p50} ms; RSS +${bigFetch.extraRssMB} MB after, peak +${bigFetch.peakExtraMB} MB; ${bigFetch.readBytes} bytes read of ${bigFetch.storedBytes}`,
    );
    const json = await jsonBench(path.join(dir, "json"), options.jsonReps ?? 3);
    log(
      `$[*][*] on ${(json.docBytes / MB).toFixed(1)} MB JSON: JSON.parse ${json.parse.ms} ms / +${json.parse.peakExtraMB} MB peak; selector ${json.select.ms} ms / +${json.select.peakExtraMB} MB (${json.timeRatio}x, ${json.memRatio}x); through store.select ${json.store.ms} ms / +${json.store.peakExtraMB} MB`,
    );
    const search = await searchBench(path.join(dir, "search"), options.searchOutputs ?? 500, OUTPUT_KINDS, createRng);
    log(
      `ledger_search over ${search.outputs} outputs of one session (${(search.bytes / MB).toFixed(1)} MB): p50 ${search.ms.p50} ms, p95 ${search.ms.p95} ms (${search.queries} queries; first, uncached ${search.firstMs} ms)`,
    );
    const gc = await gcBench(path.join(dir, "gc"), options.gcArtifacts ?? 100_000);
    log(
      `gc over ${gc.artifacts} artifacts (10% expired): ${gc.gcMs} ms (removed ${gc.removed}); populating took ${gc.populateMs} ms`,
    );
    const worstFetch = Math.max(...fetch.selectors.map((r) => r.ms.p50));
    const grepE2e = fetch.selectors.find((r) => r.selector === "grep").ms.p50;
    const level1 = big.byLevel.find((l) => l.level === 1);
    return {
      name: "artifact-store",
      stash,
      bigStash: big,
      fullExec,
      fetch,
      bigFetch,
      json,
      search,
      gc,
      targets: {
        stash150KBMBps: check(stash.mbPerSec.p50, ">=", 50, "MB/s"),
        stash20MBMBps: check(level1.mbPerSec.p50, ">=", 50, "MB/s"),
        fullExec20MBStashMBps: check(fullExec.stashMbPerSec, ">=", 50, "MB/s"),
        fullExec20MBPeakVsOutput: check(
          round((Math.max(fullExec.capturePeakExtraMB, fullExec.linkPeakExtraMB) * MB) / fullExec.outputBytes),
          "<=",
          3,
          "x",
        ),
        fetchWorstSelectorP50Ms: check(worstFetch, "<=", 50, "ms"),
        grep10MBMs: check(grepE2e, "<=", 200, "ms"),
        fetch200MiBMs: check(Math.max(bigFetch.firstMs, bigFetch.laterMs.p50), "<=", 100, "ms"),
        fetch200MiBExtraRssMB: check(Math.max(bigFetch.extraRssMB, bigFetch.peakExtraMB), "<=", 50, "MB"),
        json14MBTimeRatio: check(json.timeRatio, "<=", 2, "x"),
        json14MBMemoryRatio: check(json.memRatio, "<=", 2, "x"),
        search500P95Ms: check(search.ms.p95, "<=", 200, "ms"),
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `ledger_search` over one session of `outputs` stored outputs (seeded mix of kinds, 2-60 KB each, a planted
 * line in a few): time per query through the tool, repeated queries reading from the store's cache.
 */
async function searchBench(root, outputs, OUTPUT_KINDS, createRng) {
  const { createLedgerTools } = await import("../dist/src/retrieval/tools.js");
  const rng = createRng(31);
  const store = createArtifactStore({ root });
  const kinds = Object.values(OUTPUT_KINDS);
  const origin = { sessionKey: "agent:main:long", toolName: "exec" };
  let bytes = 0;
  for (let i = 0; i < outputs; i++) {
    const kind = kinds[i % kinds.length];
    let text = kind.make(2_000 + Math.floor(rng() * 58_000), rng);
    if (i % 50 === 7) text += `\nplanted fact ${i}: the release train is codenamed heron-${i}\n`;
    bytes += Buffer.byteLength(text);
    await store.stash(text, { kind: "tool-output", origin });
  }
  const [, , search] = createLedgerTools(
    { openStore: () => store, readableAgents: () => [], defaultMaxChars: 8_000 },
    { agentId: "main", sessionKey: origin.sessionKey },
  );
  const queries = ["codenamed heron-307", "ERROR", "release train", "timeout", "heron-57"];
  const t0 = performance.now();
  await search.execute("s0", { query: queries[0] });
  const firstMs = round(performance.now() - t0);
  const times = await timeRuns(30, (i) => search.execute(`s${i}`, { query: queries[i % queries.length] }));
  return { outputs, bytes, queries: times.length, firstMs, ms: summarize(times) };
}

// ---- child processes: `node --expose-gc bench/store.mjs --child <task> ...` ----

const rssMB = () => process.memoryUsage().rss / MB;
const peakMB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
/** Resets the kernel's peak-RSS mark (VmHWM) so the next reading covers only what follows. */
const resetPeak = () => writeFileSync("/proc/self/clear_refs", "5");

async function childFetch200(root, handle) {
  const { createLedgerTools } = await import("../dist/src/retrieval/tools.js");
  let readBytes = 0;
  const store = createArtifactStore({ root, onBlobRead: (n) => (readBytes += n) });
  const [fetch] = createLedgerTools(
    { openStore: () => store, readableAgents: () => [], defaultMaxChars: 8_000 },
    { agentId: "main" },
  );
  globalThis.gc();
  const rss0 = rssMB();
  resetPeak();
  const t = performance.now();
  const first = await fetch.execute("b1", { handle, lines: "1000000-1000009" });
  const firstMs = performance.now() - t;
  const text = first.content[0].text;
  if (!text.includes("\nline 1000000 ") || first.details.error)
    throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
  const peakExtraMB = peakMB() - rss0;
  const extraRssMB = rssMB() - rss0;
  const firstRead = readBytes;
  const later = [];
  for (const start of [1, 500_000, 1_500_000, 2_097_143, 1_000_000, 777_777, 42, 2_000_000]) {
    const t2 = performance.now();
    await fetch.execute("b2", { handle, lines: `${start}-${start + 9}` });
    later.push(performance.now() - t2);
  }
  return {
    firstMs: round(firstMs),
    laterMs: summarize(later),
    extraRssMB: round(extraRssMB),
    peakExtraMB: round(Math.max(peakExtraMB, extraRssMB)),
    readBytes: firstRead,
  };
}

/**
 * The gateway's side of a 20 MB opt-in exec capture, in a fresh process: storing the tee file
 * (stashTeeOutput: stream into the store, count chars and lines), then linking it as assemble does
 * (the capture index reads the original to verify it against the host's copy).
 */
async function childTee(root, file, hostCopyFile) {
  const { stashTeeOutput } = await import("../dist/src/capture/full-exec/stash-tee.js");
  const { createCaptureIndex } = await import("../dist/src/capture/capture-index.js");
  const store = createArtifactStore({ root: path.join(root, "agents", "main", "artifacts") });
  await store.stash("warm-up");
  globalThis.gc();
  const rss0 = rssMB();
  resetPeak();
  const t = performance.now();
  const got = await stashTeeOutput(file, {
    store,
    origin: { toolName: "exec", toolCallId: "call_t1", agentId: "main", sessionKey: "s" },
    oversized: () => true,
    oversizedBytes: 32_000,
  });
  const stashMs = performance.now() - t;
  const capturePeakMB = peakMB() - rss0;
  const index = createCaptureIndex(root, "main");
  const session = { sessionKey: "s" };
  const hostCopy = readFileSync(hostCopyFile, "utf8");
  const host = await store.stash(hostCopy);
  await index.record({
    toolCallId: "call_t1",
    toolName: "exec",
    ...session,
    handle: host.handle,
    chars: hostCopy.length,
    lines: 1,
    source: "aggregated",
  });
  await index.record({
    toolCallId: "call_t1",
    toolName: "exec",
    ...session,
    handle: got.handle,
    chars: got.chars,
    lines: got.lines,
    source: "exec-tee",
  });
  globalThis.gc();
  const rss1 = rssMB();
  resetPeak();
  const t2 = performance.now();
  const linked = index.resolve({ hostId: "call_t1", hostText: hostCopy, session });
  const linkMs = performance.now() - t2;
  if (linked?.handle !== got.handle) throw new Error("the tee capture was not linked to the host's copy");
  return {
    bytes: got.bytes,
    stashMs: round(stashMs),
    stashMbPerSec: round(got.bytes / MB / (stashMs / 1000)),
    capturePeakExtraMB: round(capturePeakMB),
    linkMs: round(linkMs),
    linkPeakExtraMB: round(peakMB() - rss1),
  };
}

async function childJson(mode, file, root, handle) {
  const text = mode === "store" ? "" : readFileSync(file, "utf8");
  const store = createArtifactStore({ root });
  const selector = { kind: "json", path: "$[*][*]" };
  globalThis.gc();
  const rss0 = rssMB();
  resetPeak();
  const t = performance.now();
  let notice = "";
  if (mode === "parse") JSON.parse(text);
  else if (mode === "select") notice = selectSlice(text, selector, { maxChars: 8_000 }).notice;
  else notice = (await store.select(handle, selector, { maxChars: 8_000 })).notice;
  const ms = performance.now() - t;
  return { ms: round(ms), peakExtraMB: round(peakMB() - rss0), notice };
}

if (process.argv[1] === SELF && process.argv[2] === "--child") {
  const [task, ...args] = process.argv.slice(3);
  const result =
    task === "fetch200"
      ? await childFetch200(...args)
      : task === "tee"
        ? await childTee(...args)
        : await childJson(...args);
  console.log(JSON.stringify(result));
}
