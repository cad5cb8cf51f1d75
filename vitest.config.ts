import { defineConfig } from "vitest/config";

// Three projects: `unit` (fast, in-process), `soak` (long multi-process runs) and `host`
// (real OpenClaw processes: one file per host line, `test/host/line-<version>.test.ts`,
// each starting one gateway per engine that serves every scenario of the line, plus the
// install path and tests that load a host's own modules, `*.host.test.ts`). `npm test`
// runs all three, in that order (`sequence.groupOrder`); `npm run test:unit` the first.
// Host files run two at a time: on 2 cores that was the fastest (see README).
// The wall-time reporter prints each project's and each host file's wall time at the end.
export default defineConfig({
  test: {
    reporters: ["default", "./test/reporters/wall-time.ts"],
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["test/host/line-*.test.ts", "test/host/install-path.test.ts", "**/*.host.test.ts", "node_modules/**", "**/*.soak.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "soak",
          include: ["test/**/*.soak.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "host",
          include: ["test/host/line-*.test.ts", "test/host/install-path.test.ts", "**/*.host.test.ts"],
          exclude: ["node_modules/**"],
          testTimeout: 900_000,
          hookTimeout: 900_000,
          pool: "forks",
          maxWorkers: 2,
          // Installs missing host lines into .cache/ while the unit tests run.
          globalSetup: ["./test/host/global-setup.ts"],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
