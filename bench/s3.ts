// Benchmark 11 (opt-in, `--only s3`): the artifact store on S3, against a throwaway Ceph RGW
// (Debian packages ceph-mon ceph-osd radosgw ceph-common). Stash of a 20 MB output straight to
// the bucket (hash, gzip, multipart upload), and a 10-line fetch from a 200 MiB artifact with a
// cold store object (index and chunk by ranged GETs); assemble() on the bucket against the file store.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createS3Backend } from "../src/artifacts/backends/s3-backend.js";
import { createBackendStore } from "../src/artifacts/store-core.js";
import { CEPH_INSTALL_COMMAND, cephAvailable, createRgwBucket, startCephRgw } from "../test/support/ceph-rgw.js";
import { captured } from "./latency.mjs";
import { check, round } from "./lib/stats.mjs";

/** The environment variables the bench's engines read the RGW user's keys from. */
const KEY_ENV = "LEDGER_BENCH_S3_KEY";
const SECRET_ENV = "LEDGER_BENCH_S3_SECRET";

/** `lines` numbered 100-byte log lines, piece by piece. */
async function* logLines(lines: number, salt: number): AsyncGenerator<Buffer> {
  for (let n = 0; n < lines; n += 10_000) {
    const count = Math.min(10_000, lines - n);
    const piece = Buffer.alloc(count * 100, ".");
    for (let k = 0; k < count; k++) {
      const i = n + k;
      piece.write(`${salt} line ${i} status=${(i * 7919) % 600} took ${(i * 31) % 997}ms `, k * 100, "latin1");
      piece[k * 100 + 99] = 10;
    }
    yield piece;
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Runs the S3 benchmark; `skipped` when Ceph is not installed. */
export async function runS3Bench(options: { quick?: boolean; log?: (line: string) => void } = {}) {
  const log = options.log ?? (() => undefined);
  if (!cephAvailable()) {
    log(`skipped: Ceph RGW is not installed (${CEPH_INSTALL_COMMAND})`);
    return { skipped: true };
  }
  const rgw = await startCephRgw({ memstoreBytes: 1536 * 1024 * 1024 });
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-bench-s3-"));
  try {
    log(`Ceph RGW up in ${rgw.startMs} ms`);
    const credentials = { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey };
    await createRgwBucket(rgw, "bench");
    const backendOptions = { endpoint: rgw.endpoint, bucket: "bench", prefix: "b", pathStyle: true, credentials };
    const store = createBackendStore(createS3Backend(backendOptions), { root: dir });
    await store.stash("warm-up"); // pools are created on first use
    const stashMbps: number[] = [];
    for (let run = 0; run < (options.quick ? 2 : 5); run++) {
      const started = performance.now();
      const { meta } = await store.stashStream(logLines(200_000, run));
      const ms = performance.now() - started;
      stashMbps.push(meta.bytes / 1_000_000 / (ms / 1000));
      log(
        `stash 20 MB: ${round(ms)} ms (${round(stashMbps.at(-1) as number)} MB/s, ${meta.storedBytes} bytes uploaded)`,
      );
    }
    const big = await store.stashStream(logLines(2_097_152, 99));
    log(`200 MiB artifact stored as ${big.meta.storedBytes} bytes`);
    const fetchMs: number[] = [];
    let fetchedBytes = 0;
    for (let run = 0; run < (options.quick ? 3 : 10); run++) {
      let bytes = 0;
      const cold = createBackendStore(createS3Backend(backendOptions), {
        root: dir,
        onBlobRead: (n) => (bytes += n),
      });
      await cold.has(big.handle); // the SDK's load and first connection are not the fetch
      const start = 100_000 + run * 150_000;
      const started = performance.now();
      await cold.select(big.handle, { kind: "range", start, end: start + 9 }, { maxChars: 8_000 });
      fetchMs.push(performance.now() - started);
      fetchedBytes = bytes;
    }
    log(`10 lines of 200 MiB, cold store: p50 ${round(median(fetchMs))} ms, ${fetchedBytes} bytes fetched`);

    // The same assemble() workload on an engine whose store is the file store and on one whose store is the
    // bucket (spool and cache in front), alternated so that the machine's load falls on both alike.
    process.env[KEY_ENV] = rgw.accessKeyId;
    process.env[SECRET_ENV] = rgw.secretAccessKey;
    const s3Store = {
      backend: "s3",
      s3: {
        endpoint: rgw.endpoint,
        bucket: "bench",
        prefix: "assemble",
        pathStyle: true,
        accessKeyIdEnv: KEY_ENV,
        signingKeyEnv: SECRET_ENV,
      },
    };
    const calls = options.quick ? 15 : 50;
    const fileP50: number[] = [];
    const s3P50: number[] = [];
    for (let rep = 0; rep < 3; rep++) {
      fileP50.push((await captured(30, calls)).p50);
      s3P50.push((await captured(30, calls, { store: s3Store })).p50);
    }
    const assembleRatio = median(s3P50) / median(fileP50);
    log(
      `assemble p50, 40 turns and 30 captures: file store ${fileP50.join(" / ")} ms, bucket ${s3P50.join(" / ")} ms (ratio of medians ${round(assembleRatio)}x)`,
    );
    return {
      cephStartMs: rgw.startMs,
      stash20MBMBps: stashMbps.map(round),
      fetch10Of200MiBColdMs: fetchMs.map(round),
      fetch10Of200MiBBytes: fetchedBytes,
      assembleP50FileMs: fileP50,
      assembleP50S3Ms: s3P50,
      targets: {
        assembleP50VsFile: check(assembleRatio, "<=", 1.2, "x"),
        stash20MBMBps: check(median(stashMbps), ">=", 40, "MB/s"),
        fetch10Of200MiBColdMs: check(median(fetchMs), "<=", 150, "ms"),
      },
    };
  } finally {
    await rgw.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
