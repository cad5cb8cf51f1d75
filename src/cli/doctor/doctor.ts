import path from "node:path";
import { COMMON_OPTIONS, stringFlag } from "../core/args.js";
import { runCommand } from "../core/command.js";
import { checkEngineContract, standaloneCommandFinding } from "./doctor-engine.js";
import { checkHostConfig, checkHostVersion, hostValidateFinding } from "./doctor-host.js";
import { checkRemoteStore } from "./doctor-remote.js";
import { checkArtifactsAndState, checkPermissionsAndTemp } from "./doctor-store.js";
import { checkStubsWhileOff } from "./doctor-stubs.js";
import type { DoctorFinding } from "./doctor-types.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { operatorContextOf, PLUGIN_ID } from "../core/operator-context.js";
import { createProgress } from "../core/progress.js";

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
const USAGE = `Usage: {prog} doctor [--fix] [--json] [--openclaw-state DIR] [--state-dir DIR] [--openclaw-bin PATH]
Checks the host config and slot, per-agent enablement, the host version (--openclaw-bin, else the host it runs
in, else openclaw on PATH), the engine contract the host needs, store permissions, temp files, orphans, every
artifact's hash, and sessions that still cite offloaded outputs where context-ledger is off (each named with the
\`export\` that keeps their outputs). It prints the \`openclaw config validate\` command that has the host check
the rest of openclaw.json, and, when context-ledger is installed but off, the command that turns it on.
--fix only chmods, removes stale temp files and orphaned metadata.
Exit codes: 0 no error left (context-ledger switched off is not an error), 1 usage error, 3 corrupt data left,
5 other problems left.
`;

/**
 * `context-ledger doctor`: host config and slot, per-agent toggle, host
 * version, engine contract, store permissions, temp files, orphans, a full
 * hash check, and sessions still citing stubs where the plugin is off.
 * `--fix` only chmods, removes stale temp files and orphaned metadata.
 * Exit 0 when no error is left, 3 when corrupt data is left, 5 otherwise.
 */
export async function runDoctorCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "doctor", options: SPEC, usage: USAGE }, async (args, json) => {
    const fix = args.flags.fix === true;
    const ctx = await operatorContextOf(args, io.env);
    const progress = createProgress(io.stderr);
    const bin = stringFlag(args, "openclaw-bin");
    // `found` is for callers that need the host package; the report keeps the finding only.
    const { found: _found, ...host } = await checkHostVersion({
      ...(bin ? { openclawBin: bin } : {}),
      ...(io.hostEntry ? { hostEntry: io.hostEntry } : {}),
      env: io.env,
    });
    const validate = hostValidateFinding(ctx, io.env, bin);
    const findings: DoctorFinding[] = [
      ...(await checkHostConfig(ctx, io.env, bin)),
      host,
      ...(validate ? [validate] : []),
      checkEngineContract(),
      ...(await checkPermissionsAndTemp({ root: ctx.ledgerRoot, fix, progress })),
      ...(await checkArtifactsAndState({
        root: ctx.ledgerRoot,
        fix,
        progress,
        prog: progName(io),
        config: ctx.config,
        env: io.env,
      })),
      ...(await checkRemoteStore(ctx.ledgerRoot, ctx.config, io.env)),
      ...(await checkStubsWhileOff(ctx, progName(io))),
      await standaloneCommandFinding([
        ...loadPaths(ctx.hostConfig),
        path.join(ctx.openclawState, "extensions", PLUGIN_ID),
      ]),
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
      summary: {
        errors: open.length,
        warnings: findings.filter((f) => f.level === "warn" && !f.fixed).length,
        fixed: findings.filter((f) => f.fixed).length,
      },
    };
    if (json) writeJson(io, report);
    else io.stdout.write(renderDoctor(report, progName(io)));
    if (open.some((f) => f.corrupt)) return 3;
    return open.length > 0 ? 5 : 0;
  });
}

/** Human rendering: one line per finding, grouped by check, then a summary line. */
export function renderDoctor(report: DoctorReport, prog = "context-ledger"): string {
  const width = Math.max(...report.findings.map((f) => f.check.length));
  const lines = report.findings.map((f) => {
    const mark = f.fixed ? "fixed" : f.level;
    return `  ${mark.padEnd(5)}  ${f.check.padEnd(width)}  ${f.message}${f.path ? `\n  ${" ".repeat(5 + width + 4)}${f.path}` : ""}`;
  });
  const s = report.summary;
  const hint =
    !report.fix &&
    report.findings.some(
      (f) =>
        (f.check === "permissions" || f.check === "temp" || f.check === "orphans") &&
        f.level !== "ok" &&
        f.level !== "info",
    )
      ? " Run with --fix for the safe repairs."
      : "";
  return `${prog} doctor (${report.root})\n${lines.join("\n")}\n\n${report.ok ? "OK" : "PROBLEMS"}: ${s.errors} error(s), ${s.warnings} warning(s), ${s.fixed} fixed.${hint}\n`;
}

/** `plugins.load.paths` of a host config: where a linked plugin lives (an installed one: `<state>/extensions/<id>`). */
function loadPaths(hostConfig: Record<string, unknown> | undefined): string[] {
  const load = (hostConfig?.plugins as { load?: { paths?: unknown } } | undefined)?.load;
  return Array.isArray(load?.paths) ? load.paths.filter((p): p is string => typeof p === "string") : [];
}
