import { defineConfig } from "vitest/config";

// Two projects: `unit` (fast, in-process) and `host` (real OpenClaw processes, slow).
// `npm test` runs both; `npm run test:unit` runs only the first.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["test/host/**", "node_modules/**"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
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
