// `npm test`: the build and the format check first (the tests load `dist/`), then vitest (every project, the soak
// runs included) with the lint and the type check beside it at the lowest CPU priority. The unit and soak files
// leave about half a core idle on two cores; the two checks (about 40 CPU seconds) fit there instead of adding
// their own half-minute before the tests. Fails when vitest or any check fails; a check's output is printed whole
// after the tests.
import { spawn } from "node:child_process";
import path from "node:path";
import { CHECKS, reportChecks, runChecks } from "./checks.mjs";

const byName = (...names) => CHECKS.filter((c) => names.includes(c.name));

const first = await runChecks(byName("build", "format"), { slots: 2 });
if (first.some((r) => r.name === "build" && r.code !== 0)) {
  reportChecks(first);
  process.exit(1);
}

const vitest = new Promise((resolve) => {
  const child = spawn(path.join(import.meta.dirname, "..", "node_modules", ".bin", "vitest"), ["run"], {
    stdio: "inherit",
    env: { ...process.env, LEDGER_SOAK: "1" },
  });
  child.on("error", () => resolve(1));
  child.on("close", (code) => resolve(code ?? 1));
});
const beside = runChecks(byName("lint", "typecheck"), { slots: 1, lowPriority: true });

const [vitestCode, rest] = await Promise.all([vitest, beside]);
const checksPassed = reportChecks([...first, ...rest]);
process.exit(vitestCode === 0 && checksPassed ? 0 : 1);
