import { LedgerError } from "../../errors.js";
import { parseArgv, type ArgSpec } from "../args.js";

/** Option spec of one command (the shared CLI parser's spec). */
export type OptionSpec = ArgSpec;

/** Parsed command line: named values and positionals. */
export interface ParsedCommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Parses `argv` strictly against `spec` with the shared CLI parser; unknown
 * options and missing values throw `input_invalid` (the commands map it to
 * the usage exit code 1).
 */
export function parseCommandLine(argv: string[], spec: OptionSpec, command = "context-ledger"): ParsedCommandLine {
  const { flags, positionals } = parseArgv(argv, spec, command);
  return { values: flags, positionals };
}

/** A non-negative integer option, or `fallback` when absent; throws `input_invalid` otherwise. */
export function intOption(values: ParsedCommandLine["values"], name: string, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new LedgerError("input_invalid", `Expected --${name} to be a non-negative integer, got \`${String(raw)}\``);
  }
  return n;
}

/** A string option, or undefined. */
export function stringOption(values: ParsedCommandLine["values"], name: string): string | undefined {
  const raw = values[name];
  return typeof raw === "string" ? raw : undefined;
}

/** Options every operator command accepts. */
export const COMMON_OPTIONS = {
  "state-dir": { type: "string" },
  "openclaw-state": { type: "string" },
  agent: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies OptionSpec;
