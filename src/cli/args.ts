import { describeValue, LedgerError } from "../errors.js";

/** One option a command accepts. */
export interface ArgOption {
  type: "string" | "boolean";
  /** One-letter alias, e.g. `h` for `-h`. */
  short?: string;
}

/** Options of one command by long name (without `--`). */
export type ArgSpec = Record<string, ArgOption>;

/** A parsed command line. */
export interface ParsedArgs {
  /** Option values by long name: strings, or true for booleans. */
  flags: Record<string, string | true>;
  positionals: string[];
}

/**
 * Parses `argv` against `spec`: `--flag`, `--key value`, `--key=value`, `-h`,
 * positionals anywhere, `--` ends options, a lone `-` is a positional (stdin).
 * Unknown options, a missing value, or a value given to a boolean throw
 * `input_invalid` naming the command and what it accepts. No dependencies.
 */
export function parseArgv(argv: readonly string[], spec: ArgSpec, command = "context-ledger"): ParsedArgs {
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  const known = Object.keys(spec).map((k) => `--${k}`).join(", ");
  const byShort = new Map(Object.entries(spec).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const rawName = arg.startsWith("--") ? arg.slice(2, eq > 0 ? eq : undefined) : byShort.get(arg.slice(1)) ?? `-${arg.slice(1)}`;
    const option = spec[rawName];
    if (!option) throw usage(`Unknown option \`${eq > 0 ? arg.slice(0, eq) : arg}\` for \`${command}\`; expected one of ${known || "no options"}`);
    if (option.type === "boolean") {
      if (eq > 0) throw usage(`Option \`--${rawName}\` of \`${command}\` takes no value, got ${describeValue(arg.slice(eq + 1))}`);
      flags[rawName] = true;
      continue;
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next !== undefined && (next === "-" || !next.startsWith("--"))) {
        value = next;
        i++;
      }
    }
    if (value === undefined) throw usage(`Option \`--${rawName}\` of \`${command}\` needs a value`);
    flags[rawName] = value;
  }
  return { flags, positionals };
}

/** A string flag or undefined. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** An integer flag within bounds, or undefined; throws `input_invalid` otherwise. */
export function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  const n = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw usage(`Expected \`--${name}\` to be an integer between ${min} and ${max}, got ${describeValue(raw)}`);
  return n;
}

/** Parses a duration like `90s`, `15m`, `12h`, `30d`, `2w` (a bare number is days) into ms. */
export function parseDuration(text: string, name = "duration"): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?$/i.exec(text.trim());
  if (!m) throw usage(`Expected \`--${name}\` like 90s, 15m, 12h, 30d or 2w, got ${describeValue(text)}`);
  const unit = { ms: 1, s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7, w: 6.048e8 }[(m[2] ?? "d").toLowerCase() as "d"];
  return Math.round(Number(m[1]) * unit);
}

/** Parses a size like `500`, `64K`, `200MB`, `1G`, `1GiB` (binary units) into bytes. */
export function parseSize(text: string, name = "size"): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt])?(i?b)?$/i.exec(text.trim());
  if (!m) throw usage(`Expected \`--${name}\` like 500M, 1G or 2048 (bytes), got ${describeValue(text)}`);
  const power = m[2] ? "kmgt".indexOf(m[2].toLowerCase()) + 1 : 0;
  return Math.round(Number(m[1]) * 1024 ** power);
}

function usage(message: string): LedgerError {
  return new LedgerError("input_invalid", message);
}
