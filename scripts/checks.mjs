// The static checks of `npm test`: formatting (prettier), lint (typescript-eslint, type-aware),
// the type check of the whole tree and the build of the plugin. They are independent and each
// runs on one core, so two run at a time (the CI machine has two); any failure fails the run,
// with that check's output printed whole.
import { spawn } from "node:child_process";
import { cpus } from "node:os";
import path from "node:path";

const BIN = path.join(import.meta.dirname, "..", "node_modules", ".bin");
const CHECKS = [
  // Longest first, so the two slots end together.
  { name: "lint", cmd: "eslint", args: ["."] },
  { name: "typecheck", cmd: "tsc", args: ["-p", "tsconfig.json", "--noEmit"] },
  { name: "build", cmd: "tsc", args: ["-p", "tsconfig.build.json"] },
  { name: "format", cmd: "prettier", args: ["--check", "--log-level=warn", "**/*.{ts,mjs,js}"] },
];

function run(check) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(path.join(BIN, check.cmd), check.args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ ...check, code: 1, output: `${output}${err.message}\n`, ms: 0 }));
    child.on("close", (code) => resolve({ ...check, code: code ?? 1, output, ms: Date.now() - started }));
  });
}

const slots = Math.max(1, Math.min(2, cpus().length));
const queue = [...CHECKS];
const results = [];
await Promise.all(
  Array.from({ length: slots }, async () => {
    for (let check = queue.shift(); check; check = queue.shift()) results.push(await run(check));
  }),
);
const failed = results.filter((r) => r.code !== 0);
for (const r of failed) process.stderr.write(`\n--- ${r.name} failed (${r.cmd} ${r.args.join(" ")}) ---\n${r.output}`);
const times = results.map((r) => `${r.name} ${(r.ms / 1000).toFixed(1)}s${r.code === 0 ? "" : " FAILED"}`).join(", ");
console.log(`checks: ${times}`);
process.exit(failed.length === 0 ? 0 : 1);
