// The static checks of `npm test`: formatting (prettier), lint (typescript-eslint, type-aware),
// the type check of the whole tree and the build of the plugin. Run alone (`npm run checks`), two
// at a time (each runs on one core; the CI machine has two); any failure fails the run, with that
// check's output printed whole. `scripts/test.mjs` runs them beside vitest.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const BIN = path.join(import.meta.dirname, "..", "node_modules", ".bin");

/** Every check, longest first, so two slots end together. */
export const CHECKS = [
  { name: "lint", cmd: "eslint", args: ["."] },
  { name: "typecheck", cmd: "tsc", args: ["-p", "tsconfig.json", "--noEmit"] },
  { name: "build", cmd: "tsc", args: ["-p", "tsconfig.build.json"] },
  { name: "format", cmd: "prettier", args: ["--check", "--log-level=warn", "**/*.{ts,mjs,js}"] },
];

/** `argv` at the lowest CPU priority where `nice` exists: a check beside the tests takes only what they leave. */
function niced(argv) {
  return process.platform === "linux" && existsSync("/usr/bin/nice") ? ["/usr/bin/nice", "-n", "19", ...argv] : argv;
}

/** Runs one check with its output captured; resolves with its exit code, output and wall time. */
export function runCheck(check, { lowPriority = false } = {}) {
  const started = Date.now();
  const argv = [path.join(BIN, check.cmd), ...check.args];
  const [command, ...args] = lowPriority ? niced(argv) : argv;
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ ...check, code: 1, output: `${output}${err.message}\n`, ms: 0 }));
    child.on("close", (code) => resolve({ ...check, code: code ?? 1, output, ms: Date.now() - started }));
  });
}

/** Runs `checks` in `slots` parallel lanes; resolves with every result. */
export async function runChecks(checks, { slots = 1, lowPriority = false } = {}) {
  const queue = [...checks];
  const results = [];
  await Promise.all(
    Array.from({ length: slots }, async () => {
      for (let check = queue.shift(); check; check = queue.shift())
        results.push(await runCheck(check, { lowPriority }));
    }),
  );
  return results;
}

/** Prints each failed check's output and one summary line; returns true when every check passed. */
export function reportChecks(results) {
  const failed = results.filter((r) => r.code !== 0);
  for (const r of failed)
    process.stderr.write(`\n--- ${r.name} failed (${r.cmd} ${r.args.join(" ")}) ---\n${r.output}`);
  const times = results.map((r) => `${r.name} ${(r.ms / 1000).toFixed(1)}s${r.code === 0 ? "" : " FAILED"}`).join(", ");
  console.log(`checks: ${times}`);
  return failed.length === 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await runChecks(CHECKS, { slots: Math.max(1, Math.min(2, cpus().length)) });
  process.exit(reportChecks(results) ? 0 : 1);
}
