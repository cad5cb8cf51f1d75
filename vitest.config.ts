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

// The host files that take longest, longest first (clean-checkout CI, 2026-11-23: 2026.9.6 280-471 s,
// 2026.4.24 about 175 s, every other host file 17-52 s). On a clean checkout vitest has no durations
// and starts the larger files first; the line files are all about 210 bytes, so the longest started
// last and one worker idled at the end (host project 470 s; 415 s with them first and one more
// scenario). Splitting the 2026.9.6 file in two did not help (433 s): the gateways share 2 cores.
// The install path installs the tarball on all six lines in one file (11.5 min at a load average of 16, the
// only measurement so far): third, so it starts when 2026.4.24's file ends.
const HOST_FILES_LONGEST_FIRST = [
  "test/host/line-2026.9.6.test.ts",
  "test/host/line-2026.4.24.test.ts",
  "test/host/install-path.test.ts",
];

/** Vitest's order, except that the host project's longest files start first. */
class LongestHostFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = HOST_FILES_LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? HOST_FILES_LONGEST_FIRST.length : i;
    };
    const isHost = (f: TestSpecification): boolean => f.project.name === "host";
    const host = sorted.filter(isHost).sort((a, b) => rank(a) - rank(b));
    let next = 0;
    return sorted.map((f) => (isHost(f) ? (host[next++] as TestSpecification) : f));
  }
}

export default defineConfig({
  test: {
    reporters: ["default", "./test/reporters/wall-time.ts"],
    sequence: { sequencer: LongestHostFilesFirst },
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...HOST_FILES, ...SOAK_FILES, "node_modules/**"],
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
