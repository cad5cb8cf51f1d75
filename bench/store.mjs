// Benchmark 5: the artifact store. Stash throughput of 150 KB outputs (end to
// end: hash, gzip, write, fsync, link, meta), fetch p50 of every selector from
// a 10 MB artifact (read, verify, decode, select), grep over 10 MB, and gc
// over 100k artifacts (written straight into the store layout, fast).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { artifactPaths } from "../dist/src/artifacts/blob-path.js";
import { formatHandle, sha256Hex } from "../dist/src/artifacts/handle.js";
import { ARTIFACT_META_SCHEMA } from "../dist/src/artifacts/meta.js";
import { selectSlice } from "../dist/src/artifacts/selectors.js";
import { createArtifactStore } from "../dist/src/artifacts/store.js";
import { OUTPUT_KINDS } from "./lib/content.mjs";
import { createRng } from "./lib/rng.mjs";
import { check, round, summarize, timeRuns } from "./lib/stats.mjs";

const MB = 1_048_576;

async function stashBench(root, reps) {
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

async function fetchBench(root, reps) {
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
    const times = await timeRuns(reps, async () => {
      const text = await store.readText(handle);
      slice = selectSlice(text, selector, { maxChars: 8_000 });
    });
    const text = handle === logHandle ? log : json;
    const selectOnly = await timeRuns(reps, () => selectSlice(text, selector, { maxChars: 8_000 }));
    rows.push({
      selector: name,
      ms: summarize(times),
      selectOnlyMs: summarize(selectOnly),
      notice: slice.notice,
      truncated: slice.truncated,
    });
  }
  // The store keeps decoded text in memory, so the rows above are repeated fetches; a fresh store reads cold.
  const readOnly = await timeRuns(reps, () => createArtifactStore({ root }).readText(logHandle));
  const cachedRead = await timeRuns(reps, () => store.readText(logHandle));
  const grepTimes = await timeRuns(reps, () =>
    selectSlice(
      log,
      { kind: "grep", pattern: "status=5\\d\\d|E1234", flags: "i" },
      { maxChars: 8_000, grepTimeoutMs: 5_000 },
    ),
  );
  const grepSlice = selectSlice(
    log,
    { kind: "grep", pattern: "status=5\\d\\d|E1234", flags: "i" },
    { maxChars: 8_000, grepTimeoutMs: 5_000 },
  );
  return {
    artifactBytes: { log: Buffer.byteLength(log), json: Buffer.byteLength(json) },
    selectors: rows,
    readVerifyMs: summarize(readOnly),
    cachedReadMs: summarize(cachedRead),
    grepScanMs: summarize(grepTimes),
    grepNotice: grepSlice.notice,
  };
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
 * @param {{ stashReps?: number, fetchReps?: number, gcArtifacts?: number, log?: (line: string) => void }} [options]
 */
export async function runStoreBench(options = {}) {
  const log = options.log ?? (() => {});
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-bench-store-"));
  try {
    const stash = await stashBench(path.join(dir, "stash"), options.stashReps ?? 40);
    log(
      `stash 150 KB: p50 ${stash.ms.p50} ms = ${stash.mbPerSec.p50} MB/s (p5 ${stash.mbPerSec.p5}, p95 ${stash.mbPerSec.p95}); dedup re-stash p50 ${stash.dedupMs.p50} ms`,
    );
    const fetch = await fetchBench(path.join(dir, "fetch"), options.fetchReps ?? 15);
    for (const r of fetch.selectors)
      log(
        `fetch ${r.selector.padEnd(8)} from 10 MB: p50 ${r.ms.p50} ms (p95 ${r.ms.p95}; selector alone on the text in memory ${r.selectOnlyMs.p50} ms) — ${r.notice.slice(0, 90)}`,
      );
    log(
      `cold read+decode+verify 10 MB: p50 ${fetch.readVerifyMs.p50} ms (from the store's memory: ${fetch.cachedReadMs.p50} ms); grep scan of 10 MB in memory: p50 ${fetch.grepScanMs.p50} ms`,
    );
    const gc = await gcBench(path.join(dir, "gc"), options.gcArtifacts ?? 100_000);
    log(
      `gc over ${gc.artifacts} artifacts (10% expired): ${gc.gcMs} ms (removed ${gc.removed}); populating took ${gc.populateMs} ms`,
    );
    const worstFetch = Math.max(...fetch.selectors.map((r) => r.ms.p50));
    const grepE2e = fetch.selectors.find((r) => r.selector === "grep").ms.p50;
    return {
      name: "artifact-store",
      stash,
      fetch,
      gc,
      targets: {
        stash150KBMBps: check(stash.mbPerSec.p50, ">=", 50, "MB/s"),
        fetchWorstSelectorP50Ms: check(worstFetch, "<=", 50, "ms"),
        grep10MBMs: check(grepE2e, "<=", 200, "ms"),
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
