import { defineConfig } from "vitest/config";

// Three projects: `unit` (fast, in-process), `soak` (long multi-process runs) and `host`
// (real OpenClaw processes). `npm test` runs all three; `npm run test:unit` only the first.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["test/host/**", "node_modules/**", "**/*.soak.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "soak",
          include: ["test/**/*.soak.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "host",
          include: ["test/host/**/*.test.ts"],
          testTimeout: 900_000,
          hookTimeout: 900_000,
          fileParallelism: false,
          pool: "forks",
        },
      },
    ],
  },
});
