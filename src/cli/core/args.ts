import { parseArgs } from "node:util";
import { describeValue, LedgerError } from "../../errors.js";
import { closestWord } from "./closest-word.js";

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

/** Options every operator command accepts. */
export const COMMON_OPTIONS = {
  "state-dir": { type: "string" },
  "openclaw-state": { type: "string" },
  agent: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies ArgSpec;

/**
 * Parses `argv` against `spec` with `node:util` `parseArgs` (its tokens), then
 * checks them so errors name the option, what is accepted and what was got:
 * unknown options, a missing value, or a value given to a boolean throw
 * `input_invalid`. `--key value`, `--key=value`, `-h`, positionals anywhere,
 * `--` ends options, a lone `-` is a positional (stdin).
 */
export function parseArgv(argv: readonly string[], spec: ArgSpec, command = "context-ledger"): ParsedArgs {
  const known = Object.keys(spec)
    .map((k) => `--${k}`)
    .join(", ");
  const byShort = new Map(Object.entries(spec).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  // Non-strict: parseArgs' own messages do not name the command or the accepted options; ours do.
  const { tokens } = parseArgs({ args: [...argv], options: spec, strict: false, allowPositionals: true, tokens: true });
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t || t.kind === "option-terminator") continue;
    if (t.kind === "positional") {
      positionals.push(t.value);
      continue;
    }
    const name = t.rawName.startsWith("--") ? t.name : (byShort.get(t.name) ?? t.name);
    const option = spec[name];
    if (!option) {
      const near = t.rawName.startsWith("--") ? closestWord(t.name, Object.keys(spec)) : undefined;
      throw usageError(
        `Unknown option \`${t.rawName}\` for \`${command}\`; expected one of ${known || "no options"}${near ? `. Did you mean \`--${near}\`?` : ""}`,
      );
    }
    if (option.type === "boolean") {
      if (t.value !== undefined)
        throw usageError(`Option \`--${name}\` of \`${command}\` takes no value, got ${describeValue(t.value)}`);
      flags[name] = true;
      continue;
    }
    // Non-strict parseArgs takes the next word as the value even when it is another option: refuse that.
    const value = t.value !== undefined && !t.inlineValue && t.value.startsWith("--") ? undefined : t.value;
    if (value === undefined) throw usageError(`Option \`--${name}\` of \`${command}\` needs a value`);
    flags[name] = value;
  }
  return { flags, positionals };
}

/** True when `argv` asks for help (`--help` or `-h` before any `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--help" || a === "-h") return true;
  }
  return false;
}

/** True when `argv` asks for JSON output (`--json` before any `--`), even if the rest does not parse. */
export function wantsJson(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--json") return true;
  }
  return false;
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
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw usageError(`Expected \`--${name}\` to be an integer between ${min} and ${max}, got ${describeValue(raw)}`);
  return n;
}

/** A string flag that must be one of `allowed`, or undefined; throws `input_invalid` otherwise. */
export function choiceFlag<T extends string>(args: ParsedArgs, name: string, allowed: readonly T[]): T | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw))
    throw usageError(`Expected \`--${name}\` to be one of ${allowed.join(", ")}, got ${describeValue(raw)}`);
  return raw as T;
}

/** Parses a duration like `90s`, `15m`, `12h`, `30d`, `2w` (a bare number is days) into ms. */
export function parseDuration(text: string, name = "duration"): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?$/i.exec(text.trim());
  if (!m) throw usageError(`Expected \`--${name}\` like 90s, 15m, 12h, 30d or 2w, got ${describeValue(text)}`);
  const unit = { ms: 1, s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7, w: 6.048e8 }[(m[2] ?? "d").toLowerCase() as "d"];
  return Math.round(Number(m[1]) * unit);
}

/** Parses a size like `500`, `64K`, `200MB`, `1G`, `1GiB` (binary units) into bytes. */
export function parseSize(text: string, name = "size"): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt])?(i?b)?$/i.exec(text.trim());
  if (!m) throw usageError(`Expected \`--${name}\` like 500M, 1G or 2048 (bytes), got ${describeValue(text)}`);
  const power = m[2] ? "kmgt".indexOf(m[2].toLowerCase()) + 1 : 0;
  return Math.round(Number(m[1]) * 1024 ** power);
}

/** A usage error (exit code 1). */
export function usageError(message: string): LedgerError {
  return new LedgerError("input_invalid", message);
}
