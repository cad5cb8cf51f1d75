import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Three projects: `unit` (fast, in-process), `soak` (long or multi-process runs: the
// 10,000-call hostile-input fuzz, the SIGKILL crash test, `*.soak.test.ts`) and `host`
// (real OpenClaw processes: one file per host line, `test/host/line-<version>.test.ts`,
// each starting one gateway per engine that serves every scenario of the line, a scenario
// with its own model window or plugin settings on an agent of its own, plus the install
// path and tests that load a host's own modules, `*.host.test.ts`). `npm test`
// runs all three, unit and soak together, then host (`sequence.groupOrder`);
// `npm run test:unit` the first only. Two workers: the machine has 2 cores.
// The wall-time reporter prints each project's and each host file's wall time at the end.
// Every test under test/host/ drives a real host (other helpers' scenario files too); the
// harness's in-process checks live in test/harness/. A fourth project, `s3-gateway`, exists only
// for `npm run test:s3-gateway` (below).
const HOST_FILES = ["test/host/**/*.test.ts", "**/*.host.test.ts"];
// Real gateways on a bucket through a 60 s RGW outage, a second gateway and gc: 5-8 min, too long for
// `npm test`. Its own project, defined only for `npm run test:s3-gateway` (LEDGER_S3_GATEWAY=1).
const S3_GATEWAY_FILES = ["test/host/s3-gateway-outage.test.ts"];
const SOAK_FILES = [
  "test/**/*.soak.test.ts",
  "test/reliability/hostile-input.test.ts",
  "test/reliability/crash.test.ts",
  // Each file starts a throwaway Ceph RGW (three daemons).
  "test/s3/**/*.test.ts",
];

// The host files, longest first (their wall time in a clean-clone CI run on two cores, docs/testing.md), so the two
// workers end together: each takes the next file when it finishes one. On a clean checkout vitest has no durations
// and starts the larger files first, but the line files are all about 210 bytes. Splitting the 2026.9.6 file in two
// does not help: its gateways already keep a core busy. A host file not listed runs after these.
const HOST_FILES_LONGEST_FIRST = [
  "test/host/line-2026.9.6.test.ts",
  "test/host/line-2026.4.24.test.ts",
  "test/host/install-path.test.ts",
  "test/host/line-2026.7.35.test.ts",
  "test/host/adoption.test.ts",
  "test/host/line-2026.6.11.test.ts",
  "test/host/line-2026.5.28.test.ts",
  "test/host/s3-gateway.test.ts",
  "test/host/line-2026.8.2.test.ts",
  "test/host/operator-doctor-96.test.ts",
  "test/host/ledger-page.test.ts",
];

/** The soak files, longest first, for the same reason (the unit files after them are short). */
const SOAK_FILES_LONGEST_FIRST = [
  "test/s3/reuse-race.test.ts",
  "test/reliability/hostile-input.test.ts",
  "test/reliability/crash.test.ts",
  "test/s3/migrate.test.ts",
  "test/s3/crash-points.test.ts",
  "test/s3/reuse-faults.test.ts",
  "test/s3/shared-gc.test.ts",
  "test/reliability/reclaim-kill.soak.test.ts",
  "test/s3/cli-commands.test.ts",
];

/** Vitest's order, except that the host and soak projects' longest files start first. */
class LongestFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    for (const [project, order] of [
      ["host", HOST_FILES_LONGEST_FIRST],
      ["soak", SOAK_FILES_LONGEST_FIRST],
    ] as const) {
      const rank = (f: TestSpecification): number => {
        const i = order.findIndex((name) => f.moduleId.endsWith(name));
        return i < 0 ? order.length : i;
      };
      const inProject = (f: TestSpecification): boolean => f.project.name === project;
      const ranked = sorted.filter(inProject).sort((a, b) => rank(a) - rank(b));
      let next = 0;
      for (let i = 0; i < sorted.length; i++)
        if (inProject(sorted[i] as TestSpecification)) sorted[i] = ranked[next++] as TestSpecification;
    }
    return sorted;
  }
}

export default defineConfig({
  test: {
    reporters: ["default", "./test/reporters/wall-time.ts"],
    sequence: { sequencer: LongestFilesFirst },
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...HOST_FILES, ...SOAK_FILES, "node_modules/**"],
          // One module graph per worker, not per file: each file re-imported zod, the AWS SDK and the encoder's
          // ranks (import 42.5 CPU s of the unit run, 13.6 s shared; 178 s to 143 s alone on two cores). The few
          // spies restore themselves; a shuffled order passes too (docs/testing.md).
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "soak",
          include: SOAK_FILES,
          testTimeout: 300_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "host",
          include: HOST_FILES,
          exclude: ["node_modules/**", ...S3_GATEWAY_FILES],
          testTimeout: 900_000,
          hookTimeout: 900_000,
          pool: "forks",
          maxWorkers: 2,
          // Installs missing host lines into .cache/ while the unit tests run.
          globalSetup: ["./test/host/global-setup.ts"],
          sequence: { groupOrder: 1 },
        },
      },
      ...(process.env.LEDGER_S3_GATEWAY === "1"
        ? [
            {
              test: {
                name: "s3-gateway",
                include: S3_GATEWAY_FILES,
                testTimeout: 1_800_000,
                hookTimeout: 900_000,
                pool: "forks" as const,
                globalSetup: ["./test/host/global-setup.ts"],
              },
            },
          ]
        : []),
    ],
  },
});
