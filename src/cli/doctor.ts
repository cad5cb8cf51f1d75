import { errorMessage } from "../errors.js";
import type { CliIo } from "./run-cli.js";
import { COMMON_OPTIONS, parseCommandLine, stringOption } from "./ops/cli-options.js";
import { checkHostConfig, checkHostVersion } from "./ops/doctor-host.js";
import { checkArtifactsAndState, checkPermissionsAndTemp } from "./ops/doctor-store.js";
import type { DoctorFinding } from "./ops/doctor-types.js";
import { loadOperatorContext } from "./ops/host-config.js";
import { createProgress } from "./ops/progress.js";

/** Schema tag of `doctor --json`. */
export const DOCTOR_SCHEMA = "context-ledger.doctor.v1";

/** The `doctor --json` document. */
export interface DoctorReport {
  schema: typeof DOCTOR_SCHEMA;
  /** True when no error is left (fixed ones do not count). */
  ok: boolean;
  fix: boolean;
  root: string;
  configPath: string;
  findings: DoctorFinding[];
  summary: { errors: number; warnings: number; fixed: number };
}

const SPEC = { ...COMMON_OPTIONS, fix: { type: "boolean" }, "openclaw-bin": { type: "string" } } as const;
const USAGE = "Usage: context-ledger doctor [--fix] [--json] [--openclaw-state DIR] [--state-dir DIR] [--openclaw-bin PATH]\n";

/**
 * `context-ledger doctor`: host config and slot, per-agent toggle, host
 * version, store permissions, temp files, orphans and a full hash check.
 * `--fix` only chmods, removes stale temp files and orphaned metadata.
 * Exit 0 when no error is left, 3 when corrupt data is left, 5 otherwise.
 */
export async function runDoctorCommand(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    values = parseCommandLine(argv, SPEC, "context-ledger doctor").values;
  } catch (err) {
    io.stderr.write(`context-ledger doctor: ${errorMessage(err)}\n${USAGE}`);
    return 1;
  }
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const fix = values.fix === true;
  const ctx = await loadOperatorContext({ stateDir: stringOption(values, "state-dir"), openclawState: stringOption(values, "openclaw-state"), env: io.env });
  const progress = createProgress(io.stderr);
  const bin = stringOption(values, "openclaw-bin");
  const findings: DoctorFinding[] = [
    ...(await checkHostConfig(ctx)),
    await checkHostVersion({ ...(bin ? { openclawBin: bin } : {}), env: io.env }),
    ...(await checkPermissionsAndTemp({ root: ctx.ledgerRoot, fix, progress })),
    ...(await checkArtifactsAndState({ root: ctx.ledgerRoot, fix, progress })),
  ];
  progress.end();
  const open = findings.filter((f) => f.level === "error" && !f.fixed);
  const report: DoctorReport = {
    schema: DOCTOR_SCHEMA,
    ok: open.length === 0,
    fix,
    root: ctx.ledgerRoot,
    configPath: ctx.configPath,
    findings,
    summary: { errors: open.length, warnings: findings.filter((f) => f.level === "warn" && !f.fixed).length, fixed: findings.filter((f) => f.fixed).length },
  };
  io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctor(report));
  if (open.some((f) => f.corrupt)) return 3;
  return open.length > 0 ? 5 : 0;
}

/** Human rendering: one line per finding, grouped by check, then a summary line. */
export function renderDoctor(report: DoctorReport): string {
  const width = Math.max(...report.findings.map((f) => f.check.length));
  const lines = report.findings.map((f) => {
    const mark = f.fixed ? "fixed" : f.level;
    return `  ${mark.padEnd(5)}  ${f.check.padEnd(width)}  ${f.message}${f.path ? `\n  ${" ".repeat(5 + width + 4)}${f.path}` : ""}`;
  });
  const s = report.summary;
  const hint = !report.fix && report.findings.some((f) => (f.check === "permissions" || f.check === "temp" || f.check === "orphans") && f.level !== "ok" && f.level !== "info") ? " Run with --fix for the safe repairs." : "";
  return `context-ledger doctor (${report.root})\n${lines.join("\n")}\n\n${report.ok ? "OK" : "PROBLEMS"}: ${s.errors} error(s), ${s.warnings} warning(s), ${s.fixed} fixed.${hint}\n`;
}
